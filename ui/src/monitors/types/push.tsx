import { specForm } from "./spec.tsx";

/** A push monitor has no target: its URL is made on create and shown on its page. */
export const push = specForm("Push (heartbeat)", []);
