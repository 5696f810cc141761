import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Api } from "./api.ts";
import type { Me, Organization } from "./types.ts";

/** What every logged-in screen needs. */
export interface AppContextValue {
  api: Api;
  me: Me;
  org: Organization;
  selectOrganization(id: string): void;
  /** Re-reads the user and organizations (after a rename). */
  refreshMe(): Promise<void>;
  logout(): void;
  /** Announces a short message (aria-live) and shows it as a toast. */
  notify(message: string): void;
}

export const AppContext = createContext<AppContextValue | null>(null);

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error("useApp outside of a logged-in screen");
  return value;
}

/** Whether the role may create, change and delete resources (decisions.md §2). */
export const canWrite = (org: Organization) => org.role === "owner" || org.role === "admin";
