// The subscriber flow's HTML: the form on the public page and the small pages its links open.
// Plain forms, no script: they work without JavaScript and under the page's CSP.
import { assetPath, escapeHtml } from "./status-pages.html.ts";
import type { StatusPage } from "./status-pages.model.ts";

/** "Get updates by email": posts the address with a signed, dated form token. */
export function subscribeForm(slug: string, formToken: string): string {
  return `<section class="subscribe"><h2>Get updates by email</h2>
<form method="post" action="${escapeHtml(assetPath(slug, "subscribe"))}">
<input type="hidden" name="token" value="${escapeHtml(formToken)}">
<label for="subscribe-email">Email address</label>
<input id="subscribe-email" name="email" type="email" required maxlength="254" autocomplete="email">
<button type="submit">Subscribe</button>
</form></section>`;
}

/** A one-message page in the page's own stylesheet (a confirmation, an error, a button). */
export function messagePage(
  page: Pick<StatusPage, "name" | "slug">,
  heading: string,
  text: string,
  extra = "",
): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(page.name)}: ${escapeHtml(heading)}</title>
<link rel="stylesheet" href="${escapeHtml(assetPath(page.slug, "style.css"))}">
</head>
<body>
<main><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p>${extra}
<p><a href="${escapeHtml(assetPath(page.slug, "").replace(/\/$/, ""))}">Back to ${escapeHtml(page.name)}</a></p></main>
</body>
</html>
`;
}

/** The unsubscribe link's page: one button, so a mail scanner following links changes nothing. */
export function unsubscribeButton(slug: string, token: string): string {
  const action = `${assetPath(slug, "unsubscribe")}?token=${encodeURIComponent(token)}`;
  return `<form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>`;
}
