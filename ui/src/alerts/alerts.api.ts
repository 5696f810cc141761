/** Every call the alert rule screens make, and their shapes. */
import type { AlertChannelType, ConditionType } from "../../../src/alerts/alerts.model.ts";
import type { RuleView } from "../../../src/alerts/alerts.present.ts";
import type { Api } from "../lib/api.ts";
import type { Page } from "../lib/types.ts";

export type AlertRule = RuleView;
export type { AlertChannelType, ConditionType };
export interface RuleBody {
  name: string;
  condition: { type: ConditionType; value?: number };
  channel: Record<string, unknown>;
  enabled?: boolean;
}
const data = <T>(p: Promise<{ data: T }>) => p.then((r) => r.data);

export const listRules = (api: Api, page: number, signal?: AbortSignal) =>
  api.get<Page<AlertRule>>(`/api/v1/alert-rules?page=${page}&page_size=50`, signal);
export const getRule = (api: Api, id: string, signal?: AbortSignal) =>
  data(api.get<{ data: AlertRule }>(`/api/v1/alert-rules/${id}`, signal));
export const createRule = (api: Api, body: RuleBody) =>
  data(api.post<{ data: AlertRule }>("/api/v1/alert-rules", body));
export const updateRule = (api: Api, id: string, body: Partial<RuleBody>) =>
  data(api.patch<{ data: AlertRule }>(`/api/v1/alert-rules/${id}`, body));
export const deleteRule = (api: Api, id: string) => api.delete(`/api/v1/alert-rules/${id}`);
export const sendTestAlert = (api: Api, id: string) =>
  data(api.post<{ data: { alert_id: string } }>(`/api/v1/alert-rules/${id}/test`));
export const listSecretNames = (api: Api, signal?: AbortSignal) =>
  data(api.get<{ data: { name: string }[] }>("/api/v1/secrets", signal)).then((s) =>
    s.map((x) => x.name),
  );
