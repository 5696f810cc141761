/** Incident impacts and statuses in words, and the workflow's next step. */
export const IMPACTS = [
  { value: "none", label: "No impact" },
  { value: "minor", label: "Minor: degraded" },
  { value: "major", label: "Major: partial outage" },
  { value: "critical", label: "Critical: major outage" },
];

export const INCIDENT_STATUSES = [
  { value: "investigating", label: "Investigating" },
  { value: "identified", label: "Identified" },
  { value: "monitoring", label: "Monitoring" },
  { value: "resolved", label: "Resolved" },
];

export const impactLabel = (impact: string) =>
  IMPACTS.find((i) => i.value === impact)?.label ?? impact;
export const incidentStatusLabel = (status: string) =>
  INCIDENT_STATUSES.find((s) => s.value === status)?.label ?? status;

/** The status an update most likely moves to: the next one, resolved staying resolved. */
export function nextStatus(status: string): string {
  const index = INCIDENT_STATUSES.findIndex((s) => s.value === status);
  const next = INCIDENT_STATUSES[Math.min(index + 1, INCIDENT_STATUSES.length - 1)];
  return next?.value ?? "investigating";
}
