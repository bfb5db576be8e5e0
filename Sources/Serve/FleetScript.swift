import AirQuality

/// `GET /fleet.js`: what makes the fleet's page live — a marker per device at its last
/// position, coloured by its air, moved as `/api/last` (read every ``pollSeconds``
/// seconds) says; the list's ages and "stale" kept current; the chosen device's day drawn
/// from `/api/map`, coloured by the AQI in force. On a share link's page: that device's
/// window alone, every request carrying the link's token.
///
/// Contract: as `page.js`, every text goes through `textContent`, and only the server's own
/// paths and, with `[serve] tiles`, the tiles are fetched. `window.airlocFleet` exposes the
/// markers and the drawn runs (for the browser test and for people at the console).
enum FleetScript {
    /// Seconds between two reads of `/api/last`: a stored row is on the map within about
    /// this, whatever the number of browsers (the server makes the answer once a second).
    static let pollSeconds = 2

    static let text = script.replacingOccurrences(of: "CATEGORY_NAMES", with: categoryNames)

    /// The categories' names by their ids, for the list (the category in words beside its
    /// colour, not by colour alone).
    static var categoryNames: String {
        "{" + AQICategory.allCases.map { "\"\($0.rawValue)\": \"\($0.name)\"" }.joined(separator: ", ") + "}"
    }

    private static let script = #"""
        "use strict";
        (function () {
          var categoryNames = CATEGORY_NAMES;
          var mapElement = document.getElementById("map");
          var share = new URLSearchParams(location.search).get("share");
          var fleet = window.airlocFleet = { markers: {}, times: {}, chosen: null, runs: 0, points: 0, polls: 0 };
          var map = null, layer = null, fitted = false;
          function set(id, text) {
            var element = document.getElementById(id);
            if (element) element.textContent = text;
          }
          function withShare(path) {
            return share ? path + (path.indexOf("?") < 0 ? "?" : "&") + "share=" + encodeURIComponent(share) : path;
          }
          function get(path) {
            return fetch(withShare(path), { credentials: "same-origin" }).then(function (r) {
              if (!r.ok) throw new Error(path + ": HTTP " + r.status);
              return r.json();
            });
          }
          if (window.L && mapElement && mapElement.dataset.position !== "none") {
            set("map-note", "");
            map = L.map(mapElement, { attributionControl: true, zoomControl: true });
        \#(PageScript.tileLayer)
            map.setView([20, 0], 2);
            layer = L.layerGroup().addTo(map);
          } else if (mapElement) {
            set("map-note", mapElement.dataset.position === "none" ? "[serve] position = none: no map." : "");
          }

          function age(seconds) {
            if (seconds < 60) return seconds + " s";
            if (seconds < 3600) return Math.floor(seconds / 60) + " min";
            if (seconds < 86400) return Math.floor(seconds / 3600) + " h";
            return Math.floor(seconds / 86400) + " d";
          }
          function item(list, id) {
            var found = null;
            list.querySelectorAll("li").forEach(function (li) { if (li.dataset.device === id) found = li; });
            if (found) return found;
            var li = document.createElement("li");
            li.dataset.device = id;
            var button = document.createElement("button");
            button.type = "button";
            button.className = "device";
            button.textContent = id;
            var badge = document.createElement("span");
            var aqi = document.createElement("span");
            aqi.className = "aqi";
            badge.appendChild(aqi);
            var named = document.createElement("span");
            named.className = "category";
            var ageText = document.createElement("span");
            ageText.className = "age";
            var stale = document.createElement("span");
            stale.className = "stale";
            [button, badge, named, ageText, stale].forEach(function (part) {
              li.appendChild(part);
              li.appendChild(document.createTextNode(" "));
            });
            list.appendChild(li);
            return li;
          }
          function show(devices) {
            var list = document.getElementById("devices");
            var bounds = [];
            devices.forEach(function (d) {
              if (list) {
                var li = item(list, d.device_id);
                li.dataset.time = d.time || "";
                li.querySelector("span").className = "badge cat-" + (d.category || "unknown");
                li.querySelector(".aqi").textContent = d.us_aqi === null ? "–" : String(d.us_aqi);
                li.querySelector(".category").textContent = categoryNames[d.category] || "";
                li.querySelector(".age").textContent = d.age_seconds === null ? "no row yet" : age(d.age_seconds) + " ago";
                li.querySelector(".stale").textContent = d.stale ? "stale" : "";
              }
              fleet.times[d.device_id] = d.time;
              if (!map || d.latitude === null) return;
              var at = [d.latitude, d.longitude];
              bounds.push(at);
              var marker = fleet.markers[d.device_id];
              if (marker) {
                marker.setLatLng(at);
                marker.setStyle({ fillColor: d.colour });
              } else {
                marker = L.circleMarker(at, {
                  radius: 9, color: "#000", weight: 1, fillColor: d.colour, fillOpacity: 0.9, className: "device-marker"
                }).addTo(map);
                var label = document.createElement("span");
                label.textContent = d.device_id;
                marker.bindTooltip(label);
                marker.on("click", function () { choose(d.device_id); });
                fleet.markers[d.device_id] = marker;
              }
            });
            if (map && !fitted && bounds.length) {
              map.fitBounds(bounds, { padding: [30, 30], maxZoom: 15 });
              fitted = true;
            }
          }
          // Every page of /api/last, following its Link header's next page.
          function lastDevices(path, list) {
            return fetch(withShare(path), { credentials: "same-origin" }).then(function (r) {
              if (!r.ok) throw new Error(path + ": HTTP " + r.status);
              var link = r.headers.get("Link") || "";
              var next = link.match(/<([^>]+)>;\s*rel="next"/);
              return r.json().then(function (page) {
                list = list.concat(page);
                return next ? lastDevices(next[1], list) : list;
              });
            });
          }
          function poll() {
            lastDevices("/api/last", []).then(function (devices) {
              fleet.polls += 1;
              show(devices);
              set("live", "live · " + new Date().toISOString().slice(11, 19) + " UTC");
            }).catch(function () {
              set("live", "reconnecting…");
            }).then(function () {
              setTimeout(poll, POLL_MS);
            });
          }

          function day() {
            var input = document.getElementById("day");
            if (!input || !input.value) return "";
            var since = new Date(input.value + "T00:00:00Z");
            var until = new Date(since.getTime() + 86400000);
            return "&since=" + since.toISOString() + "&until=" + until.toISOString();
          }
          function choose(id) {
            fleet.chosen = id;
            document.querySelectorAll("#devices li").forEach(function (li) {
              li.classList.toggle("chosen", li.dataset.device === id);
            });
            draw("/api/map?device=" + encodeURIComponent(id) + day(), id);
          }
        \#(PageScript.trackRuns)
          function draw(path, label) {
            if (!map) return;
            get(path).then(function (data) {
              layer.clearLayers();
              var runs = 0;
              var bounds = trackRuns(data.points, function (run, colour) {
                if (run.length > 1) {
                  L.polyline(run, { color: colour, weight: 5, opacity: 0.9, className: "day-track" }).addTo(layer);
                } else {
                  L.circleMarker(run[0], { radius: 4, color: colour, className: "day-track" }).addTo(layer);
                }
                runs += 1;
              }).bounds;
              fleet.runs = runs;
              fleet.points = data.points.length;
              set("track-note", label + ": " + (data.points.length ? data.points.length + " points drawn" : "no track in that window"));
              if (bounds.length) map.fitBounds(bounds, { padding: [20, 20], maxZoom: 16 });
            }).catch(function (error) {
              set("track-note", label + ": " + error.message);
            });
          }

          var list = document.getElementById("devices");
          if (list) {
            list.addEventListener("click", function (event) {
              var li = event.target.closest("li");
              if (li && event.target.classList.contains("device")) choose(li.dataset.device);
            });
          }
          var picker = document.getElementById("day");
          if (picker) picker.addEventListener("change", function () { if (fleet.chosen) choose(fleet.chosen); });
          if (share) {
            var data = mapElement.dataset;
            draw("/api/map", data.device + ", " + data.since + " to " + data.until);
            set("live", "shared");
          } else {
            poll();
          }
        })();
        """#.replacingOccurrences(of: "POLL_MS", with: String(pollSeconds * 1000))
}
