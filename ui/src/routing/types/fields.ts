import type { FunctionComponent } from "preact";

/** A destination form's values as typed: text, or a checkbox. */
export type Draft = Record<string, string | boolean>;

export interface TypeFieldsProps {
  draft: Draft;
  set: (name: string, value: string | boolean) => void;
  errors: Record<string, string[]>;
  /** The `{{NAME}}` hint: the organization's secret names. */
  secretHint: string;
}

export interface DestinationTypeForm {
  label: string;
  Fields: FunctionComponent<TypeFieldsProps>;
  /** The type's fields of a new destination. */
  blank: Draft;
  /** The type's fields as the API takes them. */
  body: (draft: Draft) => Record<string, unknown>;
}

export const text = (draft: Draft, name: string) => {
  const value = draft[name];
  return typeof value === "string" ? value : "";
};
