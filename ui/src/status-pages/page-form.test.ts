import { describe, expect, test } from "bun:test";
import { ApiError } from "../lib/api.ts";
import { blankDraft, pageBody, pageFailure } from "./page-form.ts";

describe("status page form", () => {
  test("groups are numbered by line and empty optional texts are sent as null", () => {
    const body = pageBody({
      ...blankDraft(),
      name: "Acme",
      slug: " acme ",
      groups: "API\n\n Web ",
    });
    expect(body).toMatchObject({
      slug: "acme",
      description: null,
      logo_url: null,
      custom_domain: null,
      groups: [
        { name: "API", order: 1 },
        { name: "Web", order: 2 },
      ],
    });
  });

  test("a taken slug is an error at the slug; group messages go to the groups box", () => {
    expect(pageFailure(new ApiError(409, "slug_taken")).errors.slug).toHaveLength(1);
    const failure = pageFailure(
      new ApiError(422, "validation_failed", { "groups[1].name": ["too long"], name: ["empty"] }),
    );
    expect(failure.errors).toEqual({ groups: ["too long"], name: ["empty"] });
  });
});
