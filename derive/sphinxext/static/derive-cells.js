/* derive runnable cells: Python in the browser with Pyodide, loaded only when a reader presses Run.
   The runtime's folder is the cell's data-pyodide attribute (Sphinx setting derive_pyodide_url).
   No framework; the status line is an aria-live region. */
(function () {
  "use strict";
  var runtime = null; // one promise per page: the Pyodide instance

  function loadRuntime(url, timeoutSeconds, say) {
    if (runtime) { return runtime; }
    runtime = new Promise(function (resolve, reject) {
      var timer = setTimeout(function () {
        reject(new Error("The Python runtime did not load within " + timeoutSeconds +
                         " s from " + url + " (no network? a site can self-host it: derive_pyodide_url)."));
      }, timeoutSeconds * 1000);
      say("Loading the Python runtime (the first run downloads it; a few seconds)…");
      var script = document.createElement("script");
      script.src = url + "pyodide.js";
      script.onerror = function () {
        clearTimeout(timer);
        reject(new Error("The Python runtime could not be loaded from " + url +
                         " (no network? a site can self-host it: derive_pyodide_url)."));
      };
      script.onload = function () {
        say("Starting Python…");
        window.loadPyodide({ indexURL: url }).then(function (py) {
          clearTimeout(timer);
          resolve(py);
        }, function (err) {
          clearTimeout(timer);
          reject(err);
        });
      };
      document.head.appendChild(script);
    });
    runtime.catch(function () { runtime = null; }); // a later press tries again
    return runtime;
  }

  function setUp(cell) {
    var button = cell.querySelector(".derive-cell-run");
    var status = cell.querySelector(".derive-cell-status");
    var output = cell.querySelector(".derive-cell-output");
    var code = cell.querySelector(".derive-cell-code");
    var packages = (cell.getAttribute("data-packages") || "").split(/\s+/).filter(Boolean);
    var timeout = parseInt(cell.getAttribute("data-timeout") || "60", 10);
    function say(text) { status.textContent = text; }
    button.addEventListener("click", function () {
      button.disabled = true;
      loadRuntime(cell.getAttribute("data-pyodide"), timeout, say).then(function (py) {
        if (!packages.length) { return py; }
        say("Loading " + packages.join(", ") + "…");
        return py.loadPackage(packages).then(function () { return py; });
      }).then(function (py) {
        say("Running…");
        var lines = [];
        py.setStdout({ batched: function (s) { lines.push(s); } });
        py.setStderr({ batched: function (s) { lines.push(s); } });
        return py.runPythonAsync(code.value).then(function () {
          output.textContent = lines.join("\n");
          output.hidden = false;
          say("Done.");
        }, function (err) {
          output.textContent = lines.concat([String(err.message || err)]).join("\n");
          output.hidden = false;
          say("The code raised an error (shown below).");
        });
      }).catch(function (err) {
        say(String(err.message || err));
        cell.classList.add("derive-cell-offline");
      }).then(function () { button.disabled = false; });
    });
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll(".derive-cell"), setUp);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
