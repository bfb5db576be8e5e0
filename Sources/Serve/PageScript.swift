/// `GET /page.js`: what makes the device's page live — the map of the day's track with
/// the device's own Leaflet, and the rows the logger writes, through `/api/events`.
///
/// Contract: it only adds to a page that already reads without it; every text it puts in
/// the page goes through `textContent` (never `innerHTML`), so nothing from a row or a
/// place name can become markup; it fetches nothing but the device's own paths and, when
/// `[serve] tiles` is set, those tiles.
enum PageScript {
    /// The map's tiles as `[serve] tiles` says (`data-tiles`), or a plain background: the
    /// device's page and the fleet's draw their map alike.
    static let tileLayer = #"""
            var tiles = mapElement.dataset.tiles;
            if (tiles) {
              L.tileLayer(tiles, { maxZoom: 19, attribution: "Map tiles: " + new URL(tiles.replace("{s}", "a")).host })
                .addTo(map);
            } else {
              mapElement.classList.add("plain");
            }
        """#

    static let text = #"""
        "use strict";
        (function () {
          var rows = { track: 0, air: 0, sensor: 0 };
          var rowsText = document.getElementById("rows");
          if (rowsText) {
            var counts = rowsText.textContent.match(/\d+/g) || [];
            rows = { track: +counts[0] || 0, air: +counts[1] || 0, sensor: +counts[2] || 0 };
          }
          function set(id, text) {
            var element = document.getElementById(id);
            if (element) element.textContent = text;
          }
          function fixed(value) { return value === null || value === undefined ? "–" : value.toFixed(1); }

          var map = null, line = null, here = null, lastSegment = null;
          var mapElement = document.getElementById("map");
          if (window.L && mapElement && mapElement.dataset.position !== "none") {
            set("map-note", "");
            map = L.map(mapElement, { attributionControl: true, zoomControl: true });
        \#(tileLayer)
            map.setView([0, 0], 2);
            load("/api/map", { points: [], places: [] });
          } else if (mapElement) {
            set("map-note", mapElement.dataset.position === "none" ? "[serve] position = none: no map." : "");
          }

          // Every page of the day's map (each at most 10,000 points), then drawn at once.
          function load(path, day) {
            fetch(path, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (page) {
              day.points = day.points.concat(page.points);
              page.places.forEach(function (place) {
                if (!day.places.some(function (known) { return known.name === place.name; })) day.places.push(place);
              });
              if (page.next) load(page.next, day); else draw(day);
            });
          }
          function draw(data) {
            var bounds = [];
            var run = [], colour = null, segment = null;
            function flush() {
              if (run.length > 1) L.polyline(run, { color: colour, weight: 5, opacity: 0.9, className: "track" }).addTo(map);
            }
            data.points.forEach(function (p) {
              var at = [p[0], p[1]];
              bounds.push(at);
              if (p[2] !== segment) { flush(); run = []; }
              else if (p[3] !== colour) { flush(); run = [run[run.length - 1]]; }
              run.push(at);
              colour = p[3];
              segment = p[2];
            });
            flush();
            data.places.forEach(function (place) {
              var label = document.createElement("span");
              label.textContent = place.name;
              L.circleMarker([place.lat, place.lon], { radius: 3, color: "#555", className: "place" })
                .bindTooltip(label, { permanent: true, direction: "right", className: "place-name" }).addTo(map);
            });
            if (bounds.length) {
              map.fitBounds(bounds, { padding: [20, 20], maxZoom: 16 });
              moveHere(bounds[bounds.length - 1]);
            }
            line = L.polyline(bounds.length ? [bounds[bounds.length - 1]] : [], { color: "#1565C0", weight: 4, className: "live-track" }).addTo(map);
            lastSegment = segment;
          }
          function moveHere(at) {
            if (!map) return;
            if (here) here.setLatLng(at);
            else here = L.circleMarker(at, { radius: 7, color: "#000", fillColor: "#fff", fillOpacity: 1, className: "here" }).addTo(map);
          }

          // A [sensor.NAME] row's values as the card writes them (docs/sensors.md's CO₂ bands).
          function climate(row) {
            var parts = [];
            var card = document.getElementById("card");
            var imperial = card && card.dataset.units === "imperial";
            if (typeof row.co2_ppm === "number") {
              var band = row.co2_ppm <= 800 ? "Good" : row.co2_ppm <= 1400 ? "Moderate" : "Poor";
              parts.push("CO₂ " + Math.round(row.co2_ppm) + " ppm " + band);
            }
            if (typeof row.temperature_c === "number") {
              parts.push(imperial ? (row.temperature_c * 9 / 5 + 32).toFixed(1) + " °F" : row.temperature_c.toFixed(1) + " °C");
            }
            if (typeof row.relative_humidity === "number") parts.push(Math.round(row.relative_humidity) + " % humidity");
            if (typeof row.pressure_hpa === "number") parts.push(row.pressure_hpa.toFixed(1) + " hPa");
            return parts.join(" · ");
          }

          function showRows() {
            set("rows", rows.track + " track · " + rows.air + " air · " + rows.sensor + " measured");
          }
          if (!window.EventSource) return;
          var events = new EventSource("/api/events");
          events.onopen = function () { set("live", "live"); };
          events.onerror = function () { set("live", "reconnecting…"); };
          events.addEventListener("row", function (event) {
            var row = JSON.parse(event.data);
            if (row.kind in rows) rows[row.kind] += 1;
            showRows();
            if (row.kind === "sensor" && row.name && row.name !== "sensor") {
              set("sensor-" + row.name, climate(row) + " (" + String(row.model).toUpperCase() + ", just now (" + row.time + "))");
            } else if (row.kind === "sensor") {
              var pm = row.corrected_pm2_5 !== null && row.corrected_pm2_5 !== undefined ? row.corrected_pm2_5 : row.pm2_5;
              set("measured", "PM2.5 " + fixed(pm) + " µg/m³ · PM10 " + fixed(row.pm10) + " µg/m³ (" + String(row.model).toUpperCase() + ")");
              set("measured-age", "just now (" + row.time + ")");
            } else if (row.kind === "track" && row.latitude !== null && map) {
              var at = [row.latitude, row.longitude];
              if (line) line.addLatLng(at);
              moveHere(at);
            }
          });
        })();
        """#
}
