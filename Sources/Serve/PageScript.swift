/// `GET /page.js`: what makes the device's page live — the map of the day's track with
/// the device's own Leaflet, and the rows the logger writes, through `/api/events`.
///
/// Contract: it only adds to a page that already reads without it. At every new row it
/// takes the whole card again from `/card` (at most one request at a time, and one more
/// for the rows that came meanwhile), rendered and escaped by the server as the page is,
/// so the headline, colour, advice, lines and flags are never half old; every other text
/// it puts in the page goes through `textContent` (never `innerHTML`), so nothing from a
/// row or a place name can become markup. Ages (`<time data-at>`) tick every second,
/// counted on from the card's `data-now` (the device's clock). The day's figure is asked
/// for at the width it is shown (`/day.svg?width=`). It fetches nothing but the
/// device's own paths and, when `[serve] tiles` is set, those tiles.
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

    /// The day's points (`[lat, lon, segment, colour]`) cut into runs of one segment and
    /// one colour, each handed to `draw(points, colour)`: the device's page and the fleet's
    /// draw their tracks alike. Returns every point (the map's bounds) and the last segment.
    static let trackRuns = #"""
              function trackRuns(points, draw) {
                var bounds = [], run = [], colour = null, segment = null;
                function flush() { if (run.length) draw(run, colour); }
                points.forEach(function (p) {
                  var at = [p[0], p[1]];
                  bounds.push(at);
                  if (p[2] !== segment) { flush(); run = []; }
                  else if (p[3] !== colour) { flush(); run = [run[run.length - 1]]; }
                  run.push(at);
                  colour = p[3];
                  segment = p[2];
                });
                flush();
                return { bounds: bounds, segment: segment };
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
        \#(trackRuns)
          function draw(data) {
            var drawn = trackRuns(data.points, function (run, colour) {
              if (run.length > 1) L.polyline(run, { color: colour, weight: 5, opacity: 0.9, className: "track" }).addTo(map);
            });
            var bounds = drawn.bounds, segment = drawn.segment;
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

          function showRows() {
            set("rows", rows.track + " track · " + rows.air + " air · " + rows.sensor + " measured");
          }

          // Ages: "just now", "12 s ago", "3 min ago", "1.5 h ago", as the server writes them,
          // counted from the device's clock at render (the card's data-now) plus the time since.
          var cardNow = 0, cardAt = 0;
          function stamp() {
            var card = document.getElementById("card");
            cardNow = card && card.dataset.now ? Date.parse(card.dataset.now) : Date.now();
            cardAt = Date.now();
          }
          function age(seconds) {
            if (seconds < 5) return "just now";
            if (seconds < 90) return Math.round(seconds) + " s ago";
            if (seconds < 5400) return Math.round(seconds / 60) + " min ago";
            return (seconds / 3600).toFixed(1) + " h ago";
          }
          function tick() {
            var now = cardNow + (Date.now() - cardAt);
            var times = document.querySelectorAll("time[data-at]");
            for (var i = 0; i < times.length; i++) {
              var at = Date.parse(times[i].dataset.at);
              if (!isNaN(at)) times[i].textContent = age(Math.max(0, (now - at) / 1000));
            }
          }
          stamp();
          setInterval(tick, 1000);

          // A screen reader hears the air when it changes: the card is replaced whole, so a
          // region that stays (#announce, aria-live) is told the index and its category.
          var announced = null;
          function announce() {
            var aqi = document.getElementById("aqi"), category = document.getElementById("category");
            var region = document.getElementById("announce");
            if (!aqi || !category || !region) return;
            var said = "Air quality index " + aqi.textContent + ", " + category.textContent;
            if (announced !== null && said !== announced) region.textContent = said;
            announced = said;
          }
          announce();

          // The whole card again from the server: one request at a time, one more after it
          // when rows came meanwhile.
          var asking = false, again = false, refreshed = Date.now();
          function refreshCard() {
            if (asking) { again = true; return; }
            asking = true;
            refreshed = Date.now();
            fetch("/card", { credentials: "same-origin", cache: "no-store" })
              .then(function (r) { return r.ok ? r.text() : null; })
              .then(function (html) {
                var old = document.getElementById("card");
                if (html && old) {
                  var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("card");
                  if (fresh) { old.replaceWith(document.adoptNode(fresh)); stamp(); tick(); announce(); }
                }
              })
              .catch(function () {})
              .then(function () {
                asking = false;
                if (again) { again = false; refreshCard(); }
              });
          }

          // The day's figure drawn at the width it is shown at: its text then reads at the
          // server's size, on a phone as on a desktop (the <picture>'s sources are a guess
          // for a page without script).
          var chart = document.getElementById("chart");
          function fitChart() {
            var width = Math.min(Math.round(chart.clientWidth), 1600);
            var wanted = "/day.svg?width=" + width;
            if (width < 240 || chart.dataset.fitted === wanted) return;
            chart.dataset.fitted = wanted;
            chart.parentNode.querySelectorAll("source").forEach(function (s) { s.remove(); });
            chart.src = wanted;
          }
          if (chart) {
            fitChart();
            var resized = null;
            window.addEventListener("resize", function () { clearTimeout(resized); resized = setTimeout(fitChart, 300); });
          }

          if (!window.EventSource) return;
          var events = new EventSource("/api/events");
          window.airlocPage = { events: events, tick: tick };
          // A quiet stream rests (the server ends it after 30 s of keep-alives alone, so a
          // stream never read cannot hold its slot): the reconnection 2 s later is no news.
          var resting = false;
          events.addEventListener("rest", function () { resting = true; });
          events.onopen = function () { resting = false; set("live", "live"); };
          events.onerror = function () { if (!resting) set("live", "reconnecting…"); };
          events.addEventListener("row", function (event) {
            var row = JSON.parse(event.data);
            if (row.kind in rows) rows[row.kind] += 1;
            showRows();
            // A fix moves the card's place and fix line: at most every 10 s for that alone.
            if (row.kind === "sensor" || row.kind === "air" || Date.now() - refreshed > 10000) refreshCard();
            if (row.kind === "track" && row.latitude !== null && map) {
              var at = [row.latitude, row.longitude];
              if (line) line.addLatLng(at);
              moveHere(at);
            }
          });
        })();
        """#
}
