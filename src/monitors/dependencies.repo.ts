import type { Db } from "../db/db.open.ts";
import type { MonitorState } from "./monitors.model.ts";

/** A child's down alert held while its parent was down, with what the alert will say. */
export interface HeldChild {
  monitorId: string;
  organizationId: string;
  name: string;
  type: string;
  settings: string;
  changeId: string;
  from: string;
  to: string;
  at: string;
  reason: string | null;
}

/** Monitor dependencies (decisions.md §15): parents, and down alerts held for them. */
export function createDependenciesRepo(db: Db) {
  const { sqlite } = db;
  const parentOf = sqlite.prepare<{ parent_id: string | null }, [string, string]>(
    "SELECT parent_id FROM monitors WHERE organization_id = ? AND id = ?",
  );
  const stateOf = sqlite.prepare<{ state: string; held: string | null }, [string]>(
    "SELECT state, held_alert_id AS held FROM monitors WHERE id = ?",
  );
  const hold = sqlite.prepare("UPDATE monitors SET held_alert_id = ? WHERE id = ?");
  const markEvent = sqlite.prepare("UPDATE monitor_state_events SET held_by = ? WHERE id = ?");
  const heldChildren = sqlite.prepare<HeldChild, [string]>(
    `SELECT m.id AS monitorId, m.organization_id AS organizationId, m.name, m.type, m.settings,
       e.id AS changeId, e.from_state AS "from", e.to_state AS "to", e.at, e.reason
     FROM monitors m JOIN monitor_state_events e ON e.id = m.held_alert_id
     WHERE m.parent_id = ? AND m.state = 'down'`,
  );
  return {
    /** The organization's monitor's parent id; undefined when no such monitor. */
    parentOf(organizationId: string, id: string): string | null | undefined {
      const row = parentOf.get(organizationId, id);
      return row ? row.parent_id : undefined;
    },
    /** A monitor's state and held alert, read inside the check's transaction. */
    stateOf(id: string): { state: MonitorState; heldAlertId: string | null } | null {
      const row = stateOf.get(id);
      return row ? { state: row.state as MonitorState, heldAlertId: row.held } : null;
    },
    /** Holds a down alert: the change names the parent it waits for. */
    hold(monitorId: string, changeId: string, parentId: string): void {
      hold.run(changeId, monitorId);
      markEvent.run(parentId, changeId);
    },
    release: (monitorId: string) => void hold.run(null, monitorId),
    /** The parent's children still down with a held alert. */
    heldChildren: (parentId: string) => heldChildren.all(parentId),
  };
}

export type DependenciesRepo = ReturnType<typeof createDependenciesRepo>;
