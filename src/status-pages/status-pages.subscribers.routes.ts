import { Elysia, t } from "elysia";
import { isEmailAddress } from "../alerts/alerts.email.ts";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { parsePageRequest } from "../db/db.pagination.ts";
import { ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";
import type { PublicBaseUrl } from "../http/http.public-url.ts";
import { UI_SECURITY_HEADERS } from "../http/ui.routes.ts";
import { failIf, statusPageErrors } from "./status-pages.errors.ts";
import type { StatusPage } from "./status-pages.model.ts";
import { notFoundPage } from "./status-pages.public-routes.ts";
import type { StatusPagesStore } from "./status-pages.store.ts";
import { messagePage, unsubscribeButton } from "./status-pages.subscribers.html.ts";
import {
  deleteSubscriber,
  listSubscribers,
  SubscriberSchema,
  subscribersCsv,
} from "./status-pages.subscribers.list.ts";
import {
  createWindowLimiter,
  SUBSCRIBES_PER_PAGE_PER_MINUTE,
} from "./status-pages.subscribers.model.ts";
import {
  confirmSubscriber,
  type SubscribeOutcome,
  type SubscriberLinksDeps,
  unsubscribe,
  unsubscribeLinkValid,
} from "./status-pages.subscribers.service.ts";

export interface SubscriberRoutesDeps {
  guard: AuthPorts["guard"];
  pages: StatusPagesStore;
  subscribers: SubscriberLinksDeps;
  /** Where mail is offered: writes a subscription with its confirmation mail. */
  subscribe:
    | ((page: StatusPage, email: string, linkBase: string) => Promise<SubscribeOutcome>)
    | null;
  publicBaseUrl: PublicBaseUrl;
  /** Whether the operator set the mail settings: without them no page offers the form. */
  smtpConfigured: boolean;
}

const HTML = {
  ...UI_SECURITY_HEADERS,
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
};
const html = (body: string, status = 200) => new Response(body, { status, headers: HTML });
const tags = ["status pages"];
const security: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };

type Raw = Record<string, unknown>;
const fieldsOf = (body: unknown): Raw =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Raw) : {};
const text = (value: unknown) => (typeof value === "string" ? value : "");
const tokenOf = (query: Raw) => text(query.token);

/** A browser's form post wants a page back; an API client's JSON wants JSON. */
const wantsHtml = (request: Request) =>
  !(request.headers.get("content-type") ?? "").includes("application/json");

/**
 * The public side of email subscribers: `POST /status/{slug}/subscribe`, the confirmation link
 * and the unsubscribe link (GET shows a button, POST unsubscribes: RFC 8058 one-click).
 */
export function subscriberPublicRoutes(deps: SubscriberRoutesDeps) {
  const room = deps.subscribers;
  const perPage = createWindowLimiter(SUBSCRIBES_PER_PAGE_PER_MINUTE, 60_000);
  const offering = async (slug: string) => {
    const page = await deps.pages.findBySlug(slug);
    const subscribe = deps.smtpConfigured ? deps.subscribe : null;
    return page?.allowSubscribers && subscribe ? { page, subscribe } : null;
  };
  const known = (slug: string) => deps.pages.findBySlug(slug);
  return new Elysia({ prefix: "/status" })
    .post(
      "/:slug/subscribe",
      async ({ params, body, request, server }) => {
        const offer = await offering(params.slug);
        const asHtml = wantsHtml(request);
        if (!offer)
          return asHtml ? notFoundPage() : Response.json({ error: "not_found" }, { status: 404 });
        const { page, subscribe } = offer;
        const fields = fieldsOf(body);
        const email = text(fields.email).trim().toLowerCase();
        const formToken = room.signer.verify(text(fields.token), "form", room.clock.now());
        const problems: Record<string, string[]> = {};
        if (!isEmailAddress(email)) problems.email = ["must be an email address"];
        if (!formToken || formToken.subject !== page.id) {
          problems.token = ["the form has expired: reload the page and try again"];
        }
        if (Object.keys(problems).length > 0) {
          if (!asHtml) failIf(problems);
          const reason = Object.values(problems).flat().join("; ");
          return html(messagePage(page, "Not subscribed", reason), 422);
        }
        if (!perPage.take(page.id, room.clock.now())) {
          const tooMany = "Too many requests for this page: try again in a minute.";
          return asHtml
            ? html(messagePage(page, "Not subscribed", tooMany), 429)
            : Response.json(
                { error: "rate_limited" },
                { status: 429, headers: { "retry-after": "60" } },
              );
        }
        await subscribe(page, email, deps.publicBaseUrl(request, server));
        // The same answer whatever the address's state: it tells nobody who is subscribed.
        const sent =
          "If this address is not subscribed yet, a mail with a confirmation link is on its way. The link works for 48 hours.";
        return asHtml
          ? html(messagePage(page, "Check your inbox", sent), 202)
          : Response.json({ data: { status: "confirmation_sent_if_new" } }, { status: 202 });
      },
      { detail: { hide: true } },
    )
    .get(
      "/:slug/confirm",
      async ({ params, query }) => {
        const page = await known(params.slug);
        if (!page) return notFoundPage();
        if (!(await confirmSubscriber(page, tokenOf(query), room))) {
          const bad =
            "This confirmation link is not valid or has expired. Subscribe again from the page.";
          return html(messagePage(page, "Link not valid", bad), 400);
        }
        return html(
          messagePage(page, "Subscribed", `You will get ${page.name}'s incident updates by email.`),
        );
      },
      { detail: { hide: true } },
    )
    .get(
      "/:slug/unsubscribe",
      async ({ params, query }) => {
        const page = await known(params.slug);
        if (!page) return notFoundPage();
        const token = tokenOf(query);
        if (!(await unsubscribeLinkValid(page, token, room))) {
          return html(
            messagePage(page, "Not subscribed", "This address gets no mail from this page."),
          );
        }
        const ask = `Stop the mails from ${page.name}?`;
        return html(messagePage(page, "Unsubscribe", ask, unsubscribeButton(page.slug, token)));
      },
      { detail: { hide: true } },
    )
    .post(
      "/:slug/unsubscribe",
      async ({ params, query }) => {
        const page = await known(params.slug);
        if (!page) return notFoundPage();
        if (!(await unsubscribe(page, tokenOf(query), room))) {
          return html(
            messagePage(page, "Link not valid", "This unsubscribe link is not valid."),
            400,
          );
        }
        return html(
          messagePage(page, "Unsubscribed", `No more mails from ${page.name} will be sent.`),
        );
      },
      { detail: { hide: true } },
    );
}

/** `GET/DELETE /api/v1/status-pages/{id}/subscribers`: the addresses are the organization's (admins). */
export function subscriberApiRoutes(deps: SubscriberRoutesDeps) {
  const room = deps.subscribers;
  return new Elysia({ prefix: "/api/v1/status-pages/:id/subscribers" })
    .use(deps.guard())
    .get(
      "/",
      async ({ principal, params, query }) => {
        requirePermission(principal, "write");
        const page = await deps.pages.find(principal.organizationId, params.id);
        if (!page) throw statusPageErrors.notFound();
        if (query.format !== undefined && query.format !== "json" && query.format !== "csv") {
          failIf({ format: ["must be json or csv"] });
        }
        if (query.format !== "csv") {
          return listSubscribers(page, parsePageRequest(query), room.store);
        }
        const csv = new Response(await subscribersCsv(page, room.store), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="${page.slug}-subscribers.csv"`,
          },
        });
        // Elysia types an async handler's answer as one shape; a Response is sent as it is.
        return csv as unknown as Awaited<ReturnType<typeof listSubscribers>>;
      },
      {
        response: {
          200: t.Object({
            data: t.Array(SubscriberSchema),
            page: t.Integer(),
            page_size: t.Integer(),
            total: t.Integer(),
          }),
          ...errors,
        },
        detail: {
          tags,
          security,
          summary: "A page's email subscribers, newest first (admin); ?format=csv exports them all",
        },
      },
    )
    .delete(
      "/:subscriber_id",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        const page = await deps.pages.find(principal.organizationId, params.id);
        if (!page || !(await deleteSubscriber(page, params.subscriber_id, room.store))) {
          throw statusPageErrors.notFound();
        }
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errors },
        detail: { tags, security, summary: "Remove a subscriber (admin)" },
      },
    );
}
