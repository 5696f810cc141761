import { ApiError } from "../lib/api.ts";
import { formFailure } from "../lib/form-errors.ts";

/** The page form's text fields as typed, before they become a request body. */
export interface PageDraft {
  name: string;
  slug: string;
  description: string;
  primary_color: string;
  logo_url: string;
  show_service_branding: boolean;
  allow_subscribers: boolean;
  custom_domain: string;
  groups: string;
}

export const blankDraft = (): PageDraft => ({
  name: "",
  slug: "",
  description: "",
  primary_color: "#a855f7",
  logo_url: "",
  show_service_branding: true,
  allow_subscribers: false,
  custom_domain: "",
  groups: "",
});

/** Optional texts left empty are sent as null, so clearing one on edit removes it. */
export function pageBody(draft: PageDraft): Record<string, unknown> {
  const optional = (text: string) => (text.trim() === "" ? null : text.trim());
  return {
    name: draft.name,
    slug: draft.slug.trim(),
    description: optional(draft.description),
    primary_color: draft.primary_color.trim(),
    logo_url: optional(draft.logo_url),
    show_service_branding: draft.show_service_branding,
    allow_subscribers: draft.allow_subscribers,
    custom_domain: optional(draft.custom_domain),
    groups: groupList(draft.groups).map((name, index) => ({ name, order: index + 1 })),
  };
}

/** Groups are typed one per line, in the order the page shows them. */
export const groupList = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * A failed save as the form shows it. The conflicts name one field each, so they are put there;
 * every `groups[…]` message belongs to the one groups box.
 */
export function pageFailure(error: unknown) {
  if (error instanceof ApiError && error.code === "slug_taken")
    return { errors: { slug: ["Another status page already uses this slug."] }, message: "" };
  if (error instanceof ApiError && error.code === "custom_domain_taken")
    return {
      errors: { custom_domain: ["Another status page already uses this domain."] },
      message: "",
    };
  const failure = formFailure(error);
  const errors: Record<string, string[]> = {};
  for (const [key, messages] of Object.entries(failure.errors)) {
    const field = key.startsWith("groups") ? "groups" : key;
    errors[field] = [...(errors[field] ?? []), ...messages];
  }
  return { errors, message: Object.keys(errors).length > 0 ? "" : failure.message };
}
