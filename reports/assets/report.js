(() => {
  "use strict";
  const meta = JSON.parse(document.getElementById("callproof-meta").textContent);
  const words = (text) => (text || "").split(" ");

  function filterSection(section) {
    const form = section.querySelector("form.filters");
    if (!form) return;
    const outcome = form.elements.outcome.value, level = form.elements.level.value;
    const family = form.elements.family.value, query = form.elements.q.value.trim().toLowerCase();
    const rows = section.querySelectorAll("tr.case");
    let shown = 0;
    rows.forEach((row) => {
      const d = row.dataset;
      const ok = (outcome === "all" || (outcome === "not-passed" ? d.outcome !== "passed" : d.outcome === outcome))
        && (!level || words(d.levels).includes(level)) && (!family || words(d.families).includes(family))
        && (!query || d.search.includes(query));
      row.hidden = !ok;
      const detail = document.getElementById(row.id + "-detail");
      if (detail) detail.hidden = !ok;
      if (ok) shown += 1;
    });
    section.querySelector(".shown").textContent = shown + " of " + rows.length + " cases shown";
    section.querySelector(".no-match").hidden = shown !== 0;
  }

  function setDefaults(section) {
    const form = section.querySelector("form.filters");
    const info = meta.reports[Number(section.dataset.index)] || {};
    form.elements.outcome.value = info.default_outcome || "all";
    form.elements.level.value = "";
    form.elements.family.value = "";
    form.elements.q.value = "";
    filterSection(section);
  }

  function filterMatrix() {
    const box = document.getElementById("matrix-problems");
    if (!box) return;
    const rows = document.querySelectorAll("table.matrix tbody tr");
    let shown = 0;
    rows.forEach((row) => {
      row.hidden = box.checked && row.dataset.clean === "1";
      if (!row.hidden) shown += 1;
    });
    document.getElementById("matrix-shown").textContent = shown + " of " + rows.length + " scenarios shown";
  }

  function condense(table, on) {
    table.classList.toggle("condensed", on);
    const button = document.getElementById(table.id + "-toggle");
    if (button) button.textContent = on ? button.dataset.all : button.dataset.near;
  }

  function reveal(id) {
    const target = id ? document.getElementById(id) : null;
    if (!target) return;
    const section = target.closest("section.report");
    const row = target.closest("tr.case, tr.detail");
    if (section && row && row.hidden) {
      setDefaults(section);
      if (row.hidden) {
        section.querySelector("form.filters").elements.outcome.value = "all";
        filterSection(section);
      }
    }
    for (let node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    const table = target.closest("table.condensed");
    if (table && target.classList.contains("far")) condense(table, false);
    target.scrollIntoView({block: "center"});
  }

  document.querySelectorAll("section.report").forEach((section) => {
    const form = section.querySelector("form.filters");
    form.addEventListener("input", () => filterSection(section));
    form.addEventListener("change", () => filterSection(section));
    form.addEventListener("submit", (event) => event.preventDefault());
    form.querySelector(".reset").addEventListener("click", () => setDefaults(section));
    form.querySelector(".expand").addEventListener("click", () => {
      const all = section.querySelectorAll("tr.detail:not([hidden]) details.case-detail");
      const open = !Array.from(all).every((d) => d.open);
      all.forEach((d) => { d.open = open; });
    });
    setDefaults(section);
  });

  document.querySelectorAll("table.timeline[data-condense]").forEach((table) => {
    const button = document.getElementById(table.id + "-toggle");
    button.hidden = false;
    button.addEventListener("click", () => condense(table, !table.classList.contains("condensed")));
    condense(table, true);
  });

  const box = document.getElementById("matrix-problems");
  if (box) {
    box.checked = meta.matrix_default_problems;
    box.addEventListener("change", filterMatrix);
    filterMatrix();
  }

  const fromHash = () => {
    try { reveal(decodeURIComponent(location.hash.slice(1))); } catch (error) { /* a malformed fragment */ }
    document.body.dataset.revealed = location.hash;
  };
  window.addEventListener("hashchange", fromHash);
  if (location.hash) fromHash();
  document.body.dataset.ready = "1";
})();
