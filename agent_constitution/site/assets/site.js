// Client-side search over window.SEARCH_INDEX (see search.py): every typed word must occur in the
// rule's ID, title or text. Superseded and repealed rules show only when "show all" is checked.
(function () {
  "use strict";
  var input = document.getElementById("search");
  var entries = window.SEARCH_INDEX;
  if (!input || !entries) {
    return;
  }
  var showAll = document.getElementById("show-all");
  var results = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  var base = results.getAttribute("data-base");
  var statuses = JSON.parse(results.getAttribute("data-statuses"));
  var retired = { superseded: true, repealed: true };
  var limit = 100;

  function item(entry) {
    var li = document.createElement("li");
    var link = document.createElement("a");
    var id = document.createElement("span");
    var badge = document.createElement("span");
    link.href = base + entry[0] + ".html";
    id.className = "rule-id";
    id.textContent = entry[0];
    link.appendChild(id);
    link.appendChild(document.createTextNode(" " + entry[1]));
    badge.className = "badge badge-" + entry[3];
    badge.textContent = statuses[entry[3]];
    li.appendChild(link);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(badge);
    return li;
  }

  function run() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    results.textContent = "";
    if (!words.length) {
      status.textContent = "";
      return;
    }
    var exact = [];
    var others = [];
    entries.forEach(function (entry) {
      if (retired[entry[3]] && !showAll.checked) {
        return;
      }
      var haystack = (entry[0] + " " + entry[1] + " " + entry[2]).toLowerCase();
      if (words.every(function (word) { return haystack.indexOf(word) >= 0; })) {
        (String(entry[0]) === words[0] ? exact : others).push(entry);
      }
    });
    var found = exact.concat(others);
    found.slice(0, limit).forEach(function (entry) { results.appendChild(item(entry)); });
    if (!found.length) {
      status.textContent = status.getAttribute("data-none");
    } else if (found.length === 1) {
      status.textContent = status.getAttribute("data-one");
    } else {
      status.textContent = status.getAttribute("data-matches").replace("{count}", found.length);
    }
  }

  input.addEventListener("input", run);
  showAll.addEventListener("change", run);
  run();
})();
