#!/usr/bin/env node
// Opens a report page in a real headless Chromium (puppeteer-core, installed with the npm
// servers), records console messages, page errors and any request that is not the file
// itself, reads the counts of its sections (the drift matrices cell by cell, with their
// computed colours), opens every diff and saves screenshots: the whole page, its top
// (-top.png), the first drift matrix (-drift.png) and the first diff (-diff.png).
// Prints one JSON document. Used by tests/it/report.rs.
// Usage: node check-report.mjs CHROMIUM REPORT.html SCREENSHOT.png
import { createRequire } from "node:module";

const require = createRequire(new URL("../../servers-npm/package.json", import.meta.url));
const puppeteer = require("puppeteer-core");
const [executablePath, report, screenshot] = process.argv.slice(2);

const browser = await puppeteer.launch({
  executablePath,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const messages = [];
const pageErrors = [];
const external = [];
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on("console", (m) => messages.push({ type: m.type(), text: m.text() }));
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("request", (r) => {
    if (!r.url().startsWith("file://")) external.push(r.url());
  });
  await page.goto("file://" + report, { waitUntil: "load" });
  const counts = await page.evaluate(() => {
    const all = (root, sel) => [...root.querySelectorAll(sel)];
    return {
      title: document.title,
      sections: all(document, "h2").map((h) => h.textContent),
      overviewRows: all(document, "table.overview tr.server-row").map((r) => r.dataset.server),
      charts: all(document, "svg.chart").map((svg) => ({
        id: svg.id,
        bars: all(svg, "g.bar").map((g) => [g.dataset.label, Number(g.querySelector("text.value").dataset.value)]),
      })),
      servers: all(document, "section.server").map((s) => ({
        name: s.dataset.server,
        timeline: all(s, "ol.timeline li.version").map((li) => li.dataset.version),
        stages: all(s, "ol.timeline .stage").map((e) => e.textContent),
        rounds: all(s, "table.rounds tr.round").length,
        details: all(s, "article.round-detail").length,
        breaking: all(s, "tr.change.breaking").length,
        badges: all(s, ".badge.breaking").length,
        diffs: all(s, "details.diff").length,
        openDiffs: all(s, "details.diff[open]").length,
        coloured: all(s, "details.diff .hl-keyword, details.diff .hl-string").length,
        drift: (() => {
          const matrix = s.querySelector("table.drift-matrix");
          if (!matrix) return null;
          return {
            versions: all(matrix, "thead th[data-version]").map((th) => th.dataset.version),
            rows: all(matrix, "tr.drift-call").map((tr) => Number(tr.dataset.call)),
            cells: all(matrix, "td.verdict[data-verdict]").map((td) => ({
              call: Number(td.closest("tr").dataset.call),
              version: td.dataset.version,
              verdict: td.dataset.verdict,
              forecast: td.dataset.forecast,
              title: td.title,
              text: td.textContent,
              background: getComputedStyle(td).backgroundColor,
            })),
            notes: all(s, "ul.drift-notes li").map((li) => ({
              call: Number(li.dataset.call),
              version: li.dataset.version,
              text: li.textContent,
            })),
            disagreements: all(s, "ul.drift-disagreements li").length,
          };
        })(),
      })),
      overviewTests: all(document, "table.overview tr.server-row").map((r) => ({
        server: r.dataset.server,
        tests: r.querySelector("td.test-totals")?.textContent ?? null,
        proof: r.querySelector("td.proof-totals")?.textContent ?? null,
      })),
      legend: all(document, "section.drift").slice(0, 1).flatMap((d) =>
        all(d, ".drift-legend .verdict").map((e) => [e.textContent, getComputedStyle(e).backgroundColor]),
      ),
    };
  });
  // For a person to look at: the top of the page as it opens, and one opened diff.
  await page.screenshot({ path: screenshot.replace(/\.png$/, "-top.png") });
  // Collapsed by default; opened, the code must take up room on the page.
  const closedHeight = await page.evaluate(() => document.body.scrollHeight);
  await page.evaluate(() => document.querySelectorAll("details.diff").forEach((d) => (d.open = true)));
  const openHeight = await page.evaluate(() => document.body.scrollHeight);
  await page.screenshot({ path: screenshot, fullPage: true });
  const firstDrift = await page.$("section.drift");
  if (firstDrift) await firstDrift.screenshot({ path: screenshot.replace(/\.png$/, "-drift.png") });
  const firstDiff = await page.$("details.diff");
  if (firstDiff) await firstDiff.screenshot({ path: screenshot.replace(/\.png$/, "-diff.png") });
  console.log(JSON.stringify({ messages, pageErrors, external, counts, closedHeight, openHeight }));
} finally {
  await browser.close();
}
