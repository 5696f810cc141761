import type { JSX } from "preact";
import type { ActionConfig } from "../actions.api.ts";
import type { Built, Draft } from "../config-text.ts";

export interface FieldsProps {
  draft: Draft;
  set: (key: string, value: string) => void;
  errors: Record<string, string[]>;
}

/** One action type's form: its fields, and its config to and from their text. */
export interface ActionTypeForm {
  label: string;
  Fields: (props: FieldsProps) => JSX.Element;
  fromConfig: (config: ActionConfig) => Draft;
  build: (draft: Draft) => Built;
  /** The error keys its fields show (the rest go to the form's summary). */
  claimed: string[];
}
