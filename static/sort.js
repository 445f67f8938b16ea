// Sortable tables (the roster's activity columns): each header cell with data-sort gets a
// button that sorts the table's rows by that column's data-sort values, numbers as numbers,
// and says the order in aria-sort. Without JavaScript the table keeps the order it was
// built in, and the headers are plain text.
(function () {
  "use strict";
  function value(row, index, numeric) {
    var cell = row.cells[index];
    var raw = cell ? cell.getAttribute("data-sort") || "" : "";
    if (!numeric) return raw.toLowerCase();
    var number = parseFloat(raw);
    return isNaN(number) ? -1 : number;
  }
  function sortBy(table, header, index) {
    var numeric = header.getAttribute("data-sort") === "number";
    var descending = header.getAttribute("aria-sort") !== "descending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (row, at) { row.setAttribute("data-order", String(at)); });
    rows.sort(function (a, b) {
      var x = value(a, index, numeric), y = value(b, index, numeric);
      var order = x < y ? -1 : x > y ? 1 : 0;
      if (descending) order = -order;
      return order || Number(a.getAttribute("data-order")) - Number(b.getAttribute("data-order"));
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.removeAttribute("aria-sort");
    });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }
  function start() {
    var tables = document.querySelectorAll("table[data-sortable]");
    Array.prototype.forEach.call(tables, function (table) {
      if (!table.tHead || !table.tBodies[0]) return;
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
        if (!header.hasAttribute("data-sort")) return;
        var button = document.createElement("button");
        button.type = "button";
        button.className = "sort-button";
        while (header.firstChild) button.appendChild(header.firstChild);
        header.appendChild(button);
        button.addEventListener("click", function () { sortBy(table, header, index); });
      });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
