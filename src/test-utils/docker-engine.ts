import { join } from "node:path";

/** A container as the fake daemon reports it: the inspect answer's `State`. */
export type FakeContainerState = {
  Running: boolean;
  Status: string;
  Health?: { Status: "starting" | "healthy" | "unhealthy" };
};

export interface FakeDockerEngine {
  /** `unix://…` of the socket, as a docker monitor's `docker_host` names it. */
  dockerHost: string;
  /** Paths asked so far. */
  paths: string[];
  /** Sets (or, with undefined, removes) a container by name. */
  set(name: string, state: FakeContainerState | undefined): void;
  stop(): Promise<void>;
}

/**
 * A stand-in for the Docker Engine API on a unix socket in `dir`: `GET /containers/{name}/json`
 * answers the container's inspect JSON, or 404 as the daemon does for an unknown one.
 */
export function startFakeDockerEngine(dir: string): FakeDockerEngine {
  const containers = new Map<string, FakeContainerState>();
  const paths: string[] = [];
  const socket = join(dir, "docker.sock");
  const server = Bun.serve({
    unix: socket,
    fetch(request) {
      const path = new URL(request.url).pathname;
      paths.push(path);
      const match = /^\/containers\/([^/]+)\/json$/.exec(path);
      const name = match ? decodeURIComponent(match[1] as string) : "";
      const state = containers.get(name);
      if (!state) {
        return Response.json({ message: `No such container: ${name}` }, { status: 404 });
      }
      return Response.json({ Id: "4f1c0ffee", Name: `/${name}`, State: state });
    },
  });
  return {
    dockerHost: `unix://${socket}`,
    paths,
    set: (name, state) => {
      if (state) containers.set(name, state);
      else containers.delete(name);
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}
