import type { DestinationType } from "../routing.api.ts";
import { discord, slack, telegram } from "./chat.tsx";
import type { DestinationTypeForm } from "./fields.ts";
import { http } from "./http.tsx";

/** One form per destination type: a server type without one fails `tsc -p ui`. */
export const DESTINATION_FORMS: Record<DestinationType, DestinationTypeForm> = {
  http,
  slack,
  discord,
  telegram,
};
