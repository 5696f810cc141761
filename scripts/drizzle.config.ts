import { defineConfig } from "drizzle-kit";

// Schema lives with each room as <room>.table.ts; SQL lands in migrations/ (append-only).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/**/*.table.ts",
  out: "./migrations",
});
