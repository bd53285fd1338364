// ciQA interaction session: opening the team's system (a link with target=_blank, so no pop-up blocker
// intervenes) starts the server's clock; the page counts down from the deadline the server answers and ends the
// session when time is up. The server keeps the time: a reload shows the same remaining seconds.
(function () {
  const box = document.getElementById("session");
  if (!box) return;
  const timer = document.getElementById("timer");
  const statusText = document.getElementById("status-text");
  const stop = document.getElementById("stop-early");
  const token = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
  let deadline = null;
  let ticking = null;

  function show(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    timer.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      headers: { "X-CSRFToken": token, Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
      body: body || "",
      credentials: "same-origin",
    }).then((r) => r.json().then((data) => ({ ok: r.ok, data })));
  }

  function timeUp() {
    clearInterval(ticking);
    show(0);
    statusText.textContent = "time is up";
    post(box.dataset.endUrl, "early=0").then(() => window.location.reload());
  }

  function run(remaining) {
    deadline = Date.now() + remaining * 1000;
    box.dataset.status = "running";
    statusText.textContent = "running";
    if (stop) stop.disabled = false;
    clearInterval(ticking);
    const tick = () => {
      const left = (deadline - Date.now()) / 1000;
      show(left);
      if (left <= 0) timeUp();
    };
    tick();
    ticking = setInterval(tick, 250);
  }

  show(Number(box.dataset.remaining));
  if (box.dataset.status === "running") run(Number(box.dataset.remaining));

  const open = document.getElementById("open-system");
  if (open) {
    open.addEventListener("click", () => {
      if (box.dataset.status !== "to do") return; // the clock runs already: only reopen the window
      box.dataset.status = "starting";
      post(box.dataset.startUrl).then(({ ok, data }) => {
        if (ok) run(data.remaining);
        else statusText.textContent = data.error || "could not start";
      });
    });
  }
})();
