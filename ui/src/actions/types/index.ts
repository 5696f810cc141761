import type { ActionType } from "../actions.api.ts";
import { condition } from "./condition.tsx";
import { extractJson } from "./extract-json.tsx";
import { httpRequest } from "./http-request.tsx";
import { modifyResponse } from "./modify-response.tsx";
import { runScript } from "./run-script.tsx";
import { storeVariable } from "./store-variable.tsx";
import type { ActionTypeForm } from "./type.ts";

/** One form per action type: a server type without one fails `tsc -p ui`. */
export const ACTION_TYPES: Record<ActionType, ActionTypeForm> = {
  condition,
  extract_json: extractJson,
  http_request: httpRequest,
  run_script: runScript,
  store_variable: storeVariable,
  modify_response: modifyResponse,
};
