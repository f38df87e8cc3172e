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
      say("Loading the Python runtime (the first run downloads it; a few seconds)…", "loading");
      var script = document.createElement("script");
      script.src = url + "pyodide.js";
      script.onerror = function () {
        clearTimeout(timer);
        reject(new Error("The Python runtime could not be loaded from " + url +
                         " (no network? a site can self-host it: derive_pyodide_url)."));
      };
      script.onload = function () {
        say("Starting Python…", "starting");
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

  var installedDerive = null; // one promise per page: derive's wheel installed with micropip

  // Load the cell's packages: names of the Pyodide distribution with loadPackage (which resolves their
  // dependencies from pyodide-lock.json), "derive" from the site's own wheel with micropip (deps=False).
  // A package the runtime does not have ends in one sentence, not a hang or a console-only warning.
  function loadPackages(py, cell, packages, url, say) {
    var wantDerive = packages.indexOf("derive") >= 0;
    var names = packages.filter(function (name) { return name !== "derive"; });
    if (wantDerive) { names.push("micropip"); }
    var todo = names.filter(function (name) { return !py.loadedPackages[name]; });
    var loaded = Promise.resolve();
    if (todo.length) {
      say("Loading {packages}…", "packages", { packages: todo.join(", ") });
      var errors = [];
      var note = function (message) { errors.push(message); };
      loaded = py.loadPackage(todo, { messageCallback: function () {}, errorCallback: note })
        .catch(function (err) { note(String(err.message || err)); })
        .then(function () {
          var missing = todo.filter(function (name) { return !py.loadedPackages[name]; });
          if (missing.length) {
            throw new Error(missing.join(", ") + " could not be loaded from " + url + " (offline, or a runtime " +
                            "without " + (missing.length > 1 ? "them" : "it") + "; the official full " +
                            "Pyodide distribution has " + (missing.length > 1 ? "them" : "it") + ").");
          }
        });
    }
    if (!wantDerive) { return loaded.then(function () { return py; }); }
    return loaded.then(function () {
      if (!installedDerive) {
        var wheel = new URL(cell.getAttribute("data-derive-wheel"), document.baseURI).href;
        say("Installing derive…", "installing");
        installedDerive = py.runPythonAsync("import micropip\nawait micropip.install(" + JSON.stringify(wheel) +
                                            ", deps=False)");
        installedDerive.catch(function () { installedDerive = null; });
      }
      return installedDerive.then(function () { return py; }, function (err) {
        throw new Error("derive's wheel could not be installed from this site: " +
                        String(err.message || err).trim().split("\n").pop());
      });
    });
  }

  function setUp(cell) {
    var button = cell.querySelector(".derive-cell-run");
    var status = cell.querySelector(".derive-cell-status");
    var output = cell.querySelector(".derive-cell-output");
    var code = cell.querySelector(".derive-cell-code");
    var packages = (cell.getAttribute("data-packages") || "").split(/\s+/).filter(Boolean);
    var timeout = parseInt(cell.getAttribute("data-timeout") || "60", 10);
    var url = cell.getAttribute("data-pyodide");
    // a status line in the page's language: the cell's data-say-KEY (written by the build), else the English
    function say(english, key, fields) {
      var text = (key && cell.getAttribute("data-say-" + key)) || english;
      Object.keys(fields || {}).forEach(function (name) { text = text.split("{" + name + "}").join(fields[name]); });
      status.textContent = text;
    }
    function finish(state) {
      cell.setAttribute("data-state", state); // "done", "error" (the code raised) or "offline"
      button.disabled = false;
    }
    button.addEventListener("click", function () {
      button.disabled = true;
      cell.setAttribute("data-state", "running");
      var state = "done";
      loadRuntime(url, timeout, say).then(function (py) {
        return loadPackages(py, cell, packages, url, say);
      }).then(function (py) {
        say("Running…", "running");
        var lines = [];
        py.setStdout({ batched: function (s) { lines.push(s); } });
        py.setStderr({ batched: function (s) { lines.push(s); } });
        return py.runPythonAsync(code.value).then(function () {
          output.textContent = lines.join("\n");
          output.hidden = false;
          say("Done.", "done");
        }, function (err) {
          output.textContent = lines.concat([String(err.message || err)]).join("\n");
          output.hidden = false;
          state = "error";
          say("The code raised an error (shown below).", "error");
        });
      }).catch(function (err) {
        say(String(err.message || err));
        state = "offline";
        cell.classList.add("derive-cell-offline");
      }).then(function () { finish(state); });
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
