/**
 * The public page's stylesheet. Every pair of text and background colours below meets WCAG AA
 * (4.5:1) in both schemes; state colours sit beside state words, never alone. The page's
 * `primary_color` is only decoration (a rule under the header), since its contrast is unknown.
 */
const BASE = `*{box-sizing:border-box}
:root{--bg:#ffffff;--fg:#1f2937;--muted:#4b5563;--line:#e5e7eb;--card:#f9fafb;
--up:#15803d;--degraded:#a16207;--down:#b91c1c;--maintenance:#1d4ed8;--none:#d1d5db;
--bar-up:#16a34a;--bar-degraded:#ca8a04;--bar-down:#dc2626}
@media (prefers-color-scheme:dark){:root{--bg:#111827;--fg:#f3f4f6;--muted:#d1d5db;--line:#374151;
--card:#1f2937;--up:#4ade80;--degraded:#facc15;--down:#f87171;--maintenance:#93c5fd;--none:#4b5563;
--bar-up:#22c55e;--bar-degraded:#eab308;--bar-down:#ef4444}}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.top{display:flex;align-items:center;gap:12px;max-width:860px;margin:0 auto;padding:20px 16px;border-bottom:4px solid var(--brand)}
.top h1{margin:0;font-size:1.5rem;overflow-wrap:anywhere}
.logo{width:40px;height:40px;object-fit:contain}
main{max-width:860px;margin:0 auto;padding:16px}
h2{font-size:1.125rem;margin:24px 0 8px}
h3{font-size:1rem;margin:0}
.description{color:var(--muted);overflow-wrap:anywhere}
.banner{margin:16px 0;padding:16px;border:1px solid var(--line);border-left:8px solid var(--up);background:var(--card);font-weight:600;font-size:1.125rem}
.o-degraded{border-left-color:var(--degraded)}.o-partial_outage,.o-major_outage{border-left-color:var(--down)}
.o-maintenance{border-left-color:var(--maintenance)}
.items,.updates,.maintenance ul{list-style:none;margin:0;padding:0}
.item{padding:12px 0;border-bottom:1px solid var(--line)}
.item-head{display:flex;justify-content:space-between;gap:8px;flex-wrap:wrap}
.item-name{font-weight:600;overflow-wrap:anywhere}
.state{font-weight:600}
.s-up{color:var(--up)}.s-degraded{color:var(--degraded)}.s-down{color:var(--down)}
.s-maintenance{color:var(--maintenance)}.s-pending,.s-paused{color:var(--muted)}
.bars{display:flex;gap:1px;list-style:none;margin:8px 0 4px;padding:0;height:28px}
.bar{flex:1 1 0;min-width:0;border-radius:1px;background:var(--none)}
.bar.up{background:var(--bar-up)}.bar.degraded{background:var(--bar-degraded)}.bar.down{background:var(--bar-down)}
.figure,.meta{margin:0;color:var(--muted);font-size:.875rem}
.incident{margin:8px 0;padding:12px;border:1px solid var(--line);border-left:6px solid var(--degraded);background:var(--card)}
.i-major,.i-critical{border-left-color:var(--down)}.i-none{border-left-color:var(--line)}
.updates li{margin-top:8px}.updates p,.maintenance p{margin:4px 0 0;overflow-wrap:anywhere}
.maintenance li{padding:8px 0;border-bottom:1px solid var(--line)}
footer{max-width:860px;margin:0 auto;padding:16px;color:var(--muted);font-size:.875rem}
footer p{margin:4px 0}
`;

/** The stylesheet of one page: the base, with the page's colour (a validated hex code). */
export const pageStylesheet = (primaryColor: string): string =>
  `:root{--brand:${/^#[0-9a-fA-F]{3,6}$/.test(primaryColor) ? primaryColor : "#a855f7"}}\n${BASE}`;
