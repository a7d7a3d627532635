// The explorer page (stablejax/explorer/page.py): builds the DOM from the embedded model once at
// load, with an index from "src:line" to the elements of that line, so that a hover touches only
// the elements it highlights.
(function () {
  "use strict";
  const model = JSON.parse(document.getElementById("model").textContent);
  // Pastel hues, cycled over the source lines that produced something (as Compiler Explorer's).
  const HUES = [0, 205, 48, 280, 130, 25, 180, 320, 95, 235, 60, 160];

  const srcIndex = new Map();  // "src:line" -> the .src-line element
  const irIndex = new Map();   // "src:line" -> the .ir-line elements it produced, every view
  const colourOf = new Map();  // "src:line" -> palette slot
  let lit = [];                // the elements carrying "hl" now
  let litKey = null;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function locKey(loc) { return loc[0] + ":" + loc[1]; }

  function addPaletteStyle() {
    const rules = HUES.map((h, i) =>
      ".c" + i + "{--line-colour:hsl(" + h + " 80% 89%);--line-strong:hsl(" + h + " 58% 79%)}");
    document.head.appendChild(el("style", null, rules.join("\n")));
  }

  function assignColours() {
    const used = new Set();
    for (const view of model.views || [])
      for (const line of view.lines) for (const loc of line.locs || []) used.add(locKey(loc));
    let slot = 0;
    for (const src of model.sources || [])
      src.lines.forEach((_, i) => {
        const key = src.id + ":" + (src.first_line + i);
        if (used.has(key)) colourOf.set(key, slot++ % HUES.length);
      });
  }

  // Human-readable counts: 1.2 MFLOP, 3.4 KiB, 12.5 ms.
  function human(value, unit, base) {
    const prefixes = base === 1024 ? ["", "Ki", "Mi", "Gi", "Ti"] : ["", "k", "M", "G", "T", "P"];
    let i = 0;
    while (Math.abs(value) >= base && i < prefixes.length - 1) { value /= base; i++; }
    const digits = i === 0 || Math.abs(value) >= 100 ? 0 : 1;
    return value.toFixed(digits) + " " + prefixes[i] + unit;
  }
  function flops(n) { return human(n, "FLOP", 1000); }
  function bytes(n) { return human(n, "B", 1024); }
  function seconds(s) { return s < 1 ? (s * 1000).toFixed(1) + " ms" : s.toFixed(2) + " s"; }

  function statCell(cls, text, title) {
    const cell = el("span", cls + (text ? " stat" : ""), text);
    if (title) cell.title = title;
    return cell;
  }

  function margin(stats) {
    const box = el("span", "margin");
    if (!stats) return box;
    const fusions = stats.fusions || [];
    box.append(statCell("eqns", stats.eqns ? String(stats.eqns) : "", "jaxpr equations"),
               statCell("ops", stats.ops ? String(stats.ops) : "", "StableHLO ops"),
               statCell("flops", stats.flops ? flops(stats.flops) : "", "FLOPs"),
               statCell("fusions", fusions.length ? String(fusions.length) : "",
                        fusions.join(", ")));
    return box;
  }

  // Lines in blocks of CHUNK: a block out of view skips layout and paint (content-visibility),
  // which opens a 3,000-line view several times faster; a block per line would instead slow
  // every hover's layout.
  const CHUNK = 200;
  function chunked(rows) {
    const blocks = [];
    for (let i = 0; i < rows.length; i += CHUNK) {
      const block = el("div", "chunk");
      const part = rows.slice(i, i + CHUNK);
      block.style.containIntrinsicBlockSize = "auto " + part.length * 17 + "px";
      block.append(...part);
      blocks.push(block);
    }
    return blocks;
  }

  function sourceLine(src, lineNo, text, errors) {
    const key = src.id + ":" + lineNo;
    const row = el("div", "src-line");
    row.dataset.src = src.id;
    row.dataset.line = lineNo;
    if (colourOf.has(key)) row.classList.add("c" + colourOf.get(key));
    const error = errors.get(key);
    if (error) { row.classList.add("err"); row.title = error; }
    row.append(margin((model.stats || {})[key]), el("span", "lno", String(lineNo)),
               el("span", "code", text));
    srcIndex.set(key, row);
    return row;
  }

  function buildSource() {
    const pane = document.getElementById("source");
    const frag = document.createDocumentFragment();
    const title = el("div", "pane-title", "source");
    title.appendChild(el("small", null, model.name));
    const head = el("div", "stat-head");
    const cols = el("span", "margin");
    cols.append(el("span", "eqns", "eqns"), el("span", "ops", "ops"), el("span", "flops", "FLOPs"),
                el("span", "fusions", "fus"));
    head.append(cols, el("span", "lno", ""));
    frag.append(title, head);
    const errors = new Map();
    for (const e of model.errors || [])
      if (e.src !== null && e.src !== undefined && e.line) errors.set(e.src + ":" + e.line, e.message);
    for (const src of model.sources || []) {
      frag.appendChild(el("div", "src-file", src.file + ":" + src.first_line));
      frag.append(...chunked(src.lines.map((text, i) => sourceLine(src, src.first_line + i, text, errors))));
    }
    pane.appendChild(frag);
  }

  function irLine(line) {
    const locs = line.locs || [];
    const keys = locs.map(locKey);
    const row = el("div", "ir-line");
    row.dataset.locs = keys.join(" ");
    row.dataset.nameStack = line.name_stack || "";
    if (line.fusion) row.dataset.fusion = line.fusion;
    if (keys.length && colourOf.has(keys[0])) row.classList.add("c" + colourOf.get(keys[0]));
    const backward = line.primal === false;
    if (backward) row.classList.add("bwd");
    row.appendChild(el("span", "mark", backward ? "\u21b6" : ""));
    if (line.fold) row.appendChild(el("span", "fold", line.fold.kind + " body \u00d7" + line.fold.trip_count));
    row.appendChild(el("span", "code", line.text));
    for (const key of new Set(keys)) {
      let list = irIndex.get(key);
      if (!list) irIndex.set(key, list = []);
      list.push(row);
    }
    return row;
  }

  function buildViews() {
    const views = document.getElementById("views");
    const tabs = document.getElementById("tabs");
    const frag = document.createDocumentFragment();
    const sections = [];
    for (const view of model.views || []) {
      const section = el("section", "view pane");
      section.dataset.view = view.id;
      const title = el("div", "pane-title", view.title);
      title.appendChild(el("small", null, view.lines.length + " lines"));
      section.appendChild(title);
      section.append(...chunked(view.lines.map(irLine)));
      frag.appendChild(section);
      sections.push(section);
    }
    views.appendChild(frag);
    const buttons = [];
    const show = (which) => {
      sections.forEach((s, i) => s.classList.toggle("hidden", which !== null && which !== i));
      buttons.forEach((b, i) => b.classList.toggle("on", i === (which === null ? 0 : which + 1)));
    };
    buttons.push(el("button", null, "side by side"));
    (model.views || []).forEach((view) => buttons.push(el("button", null, view.title)));
    buttons.forEach((b, i) => { b.type = "button"; b.onclick = () => show(i === 0 ? null : i - 1); });
    tabs.append(...buttons);
    show(null);
  }

  function highlight(elements, key) {
    for (const node of lit) node.classList.remove("hl");
    for (const node of elements) node.classList.add("hl");
    lit = elements;
    litKey = key;
  }

  function highlightSource(key) {
    if (key === litKey) return;
    const row = srcIndex.get(key);
    highlight((row ? [row] : []).concat(irIndex.get(key) || []), key);
  }

  // Scrolls each pane so that its first highlighted line shows (a click, never a hover).
  function reveal() {
    const seen = new Set();
    for (const node of lit) {
      const pane = node.closest(".pane");
      if (seen.has(pane)) continue;
      seen.add(pane);
      // (not offsetTop: a line's offset parent is its block, whose containment makes it one)
      const top = node.getBoundingClientRect().top - pane.getBoundingClientRect().top + pane.scrollTop;
      if (top < pane.scrollTop || top > pane.scrollTop + pane.clientHeight - 20)
        pane.scrollTop = Math.max(0, top - pane.clientHeight / 3);
    }
  }

  function onIrClick(row) {
    const keys = row.dataset.locs ? row.dataset.locs.split(" ") : [];
    const rows = keys.map((k) => srcIndex.get(k)).filter(Boolean);
    highlight([row].concat(rows), null);
    document.getElementById("name-stack").textContent = row.dataset.nameStack || "(none)";
    reveal();
  }

  function wireEvents() {
    const source = document.getElementById("source");
    // mouseenter does not bubble; a capturing listener on the pane sees it for every line.
    source.addEventListener("mouseenter", (event) => {
      const row = event.target.closest && event.target.closest(".src-line");
      if (row) highlightSource(row.dataset.src + ":" + row.dataset.line);
    }, true);
    source.addEventListener("click", (event) => {
      const row = event.target.closest(".src-line");
      if (!row) return;
      highlightSource(row.dataset.src + ":" + row.dataset.line);
      reveal();
    });
    document.getElementById("views").addEventListener("click", (event) => {
      const row = event.target.closest(".ir-line");
      if (row) onIrClick(row);
    });
  }

  function summaryGroup(title, pairs) {
    const group = el("div", "group");
    group.appendChild(el("b", null, title));
    for (const [key, value] of pairs) {
      const item = el("span");
      item.append(el("span", "key", key + " "), el("span", "num", value));
      group.appendChild(item);
    }
    return group;
  }

  function buildSummary() {
    const box = document.getElementById("summary");
    const t = model.totals || {};
    box.appendChild(summaryGroup("totals", [
      ["eqns", String(t.eqns ?? "-")], ["StableHLO ops", String(t.ops ?? "-")],
      ["HLO instructions", String(t.hlo_instructions ?? "-")],
      ["fusions", String(t.fusions ?? "-")], ["FLOPs", t.flops ? flops(t.flops) : "-"]]));
    const timings = Object.entries(model.timings || {}).map(([k, s]) => [k, seconds(s)]);
    box.appendChild(summaryGroup("time", timings.length ? timings : [["", "-"]]));
    const m = model.memory;
    box.appendChild(summaryGroup("memory", m ? [
      ["arguments", bytes(m.argument_bytes)], ["outputs", bytes(m.output_bytes)],
      ["temp", bytes(m.temp_bytes)], ["code", bytes(m.generated_code_bytes)]]
      : [["", "not available"]]));
  }

  function fillDiff(pre, text) {
    for (const line of text.split("\n")) {
      const cls = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add"
        : line.startsWith("-") ? "del" : null;
      pre.appendChild(cls ? el("span", cls, line + "\n") : document.createTextNode(line + "\n"));
    }
  }

  function passRow(pass, index, widest) {
    const details = el("details", "pass");
    const summary = el("summary");
    const delta = pass.ops_after - pass.ops_before;
    const counts = el("span", "counts", pass.ops_before + " \u2192 " + pass.ops_after + " ");
    counts.appendChild(el("span", delta < 0 ? "delta-down" : delta > 0 ? "delta-up" : "",
                          delta ? "(" + (delta > 0 ? "+" : "") + delta + ")" : "(=)"));
    const bar = el("div", "bar");
    bar.style.width = (100 * pass.ops_after / widest).toFixed(1) + "%";
    const barBox = el("div");
    barBox.appendChild(bar);
    summary.append(el("span", null, String(index + 1)), el("span", "stage", pass.stage),
                   el("span", "name", pass.name), counts, barBox);
    const pre = el("pre", "diff");
    details.append(summary, pre);
    // Diffs can be long: drawn when opened.
    details.addEventListener("toggle", () => {
      if (details.open && !pre.firstChild) fillDiff(pre, pass.diff || "(no change)");
    });
    return details;
  }

  function buildPasses() {
    const box = document.getElementById("passes");
    const passes = model.passes || [];
    if (!passes.length) { box.appendChild(el("div", "empty", "no passes ran")); return; }
    const widest = Math.max(1, ...passes.map((p) => Math.max(p.ops_before, p.ops_after)));
    const frag = document.createDocumentFragment();
    passes.forEach((pass, i) => frag.appendChild(passRow(pass, i, widest)));
    box.appendChild(frag);
  }

  function buildErrors() {
    const box = document.getElementById("errors");
    const errors = model.errors || [];
    if (!errors.length) { box.appendChild(el("div", "empty", "no errors")); return; }
    for (const error of errors) {
      const item = el("div", "error");
      item.appendChild(el("span", "stage", error.stage + " failed"));
      const src = (model.sources || []).find((s) => s.id === error.src);
      if (src && error.line) {
        const link = el("a", null, src.file + ":" + error.line);
        const key = error.src + ":" + error.line;
        link.onclick = () => { litKey = null; highlightSource(key); reveal(); };
        item.append(" at ", link);
      }
      item.appendChild(el("pre", null, error.message));
      box.appendChild(item);
    }
  }

  addPaletteStyle();
  assignColours();
  buildSummary();
  buildSource();
  buildViews();
  buildPasses();
  buildErrors();
  wireEvents();
  document.documentElement.dataset.explorer = "ready";
})();
