import { afterEach, expect, spyOn, test } from "bun:test";
import { StartupError } from "../db/db.open.ts";
import { action, fail } from "./cli.common.ts";

afterEach(() => {
  process.exitCode = 0;
});

const stderrOf = async (run: () => unknown) => {
  const write = spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    await action(run)();
    return write.mock.calls.map((call) => String(call[0])).join("");
  } finally {
    write.mockRestore();
  }
};

// In-process on purpose: were `action` to call process.exit, this test runner would die with it.
test("a failure sets exit code 1 without exiting, so buffered output still reaches a pipe", async () => {
  expect(await stderrOf(() => fail("no such thing"))).toBe("weir: no such thing\n");
  expect(process.exitCode).toBe(1);
});

test("expected errors print their message; unexpected ones say so, without a stack", async () => {
  expect(
    await stderrOf(() => Promise.reject(new StartupError("data dir x is not a directory"))),
  ).toBe("weir: data dir x is not a directory\n");
  const unexpected = await stderrOf(() => {
    throw new TypeError("boom");
  });
  expect(unexpected).toBe("weir: unexpected error: boom\n");
  expect(process.exitCode).toBe(1);
});

test("success leaves the exit code alone", async () => {
  expect(await stderrOf(() => undefined)).toBe("");
  expect(process.exitCode).toBe(0);
});
