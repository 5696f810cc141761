import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useTempDirs } from "../src/test-utils/temp-dir.ts";

const SCRIPT = join(import.meta.dir, "ensure-chromium.sh");
const tempDir = useTempDirs("weir-chromium-");

/** A directory of stub commands: `id` answers `uid`; `apt-get` logs its args and "installs". */
function stubs(uid: number, chromium: string): { bin: string; aptLog: string } {
  const bin = tempDir();
  const aptLog = join(bin, "apt.log");
  const write = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  write("id", `echo ${uid}`);
  write(
    "apt-get",
    `echo "$*" >> ${aptLog}\nif [[ "$1" == install ]]; then printf '#!/bin/sh\\n' > ${chromium}; chmod +x ${chromium}; fi`,
  );
  return { bin, aptLog };
}

function run(bin: string, chromium: string) {
  const result = Bun.spawnSync(["bash", SCRIPT], {
    env: { PATH: `${bin}:/usr/bin:/bin`, WEIR_CHROMIUM: chromium },
  });
  return { status: result.exitCode, stderr: result.stderr.toString() };
}

describe("scripts/ensure-chromium.sh (the one install used by ./scripts/test and .ci/run)", () => {
  test("a present chromium: nothing installed, success", () => {
    const chromium = join(tempDir(), "chromium");
    writeFileSync(chromium, "#!/bin/sh\n");
    chmodSync(chromium, 0o755);
    const { bin, aptLog } = stubs(0, chromium);
    expect(run(bin, chromium).status).toBe(0);
    expect(existsSync(aptLog)).toBe(false);
  });

  test("missing, as root with apt: installs chromium and fonts, then succeeds", () => {
    const chromium = join(tempDir(), "chromium");
    const { bin, aptLog } = stubs(0, chromium);
    expect(run(bin, chromium).status).toBe(0);
    const calls = readFileSync(aptLog, "utf8").trim().split("\n");
    expect(calls[0]).toBe("update -qq");
    expect(calls[1]).toBe("install -y -qq --no-install-recommends chromium fonts-dejavu-core");
    expect(existsSync(chromium)).toBe(true);
  });

  test("missing, not root: one line saying what to run, failure, no install", () => {
    const chromium = join(tempDir(), "chromium");
    const { bin, aptLog } = stubs(1000, chromium);
    const result = run(bin, chromium);
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("apt-get install -y --no-install-recommends chromium");
    expect(existsSync(aptLog)).toBe(false);
  });
});
