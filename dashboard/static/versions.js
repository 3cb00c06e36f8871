// The bot page: versions still pending ask for their verdict until it comes (no reload).
(function () {
  "use strict";
  document.querySelectorAll("tr[data-status-url]").forEach((row) => {
    const status = row.querySelector("[data-field=status]");
    const reason = row.querySelector("[data-field=reason]");
    window.arenaPoll(async () => {
      const answer = await fetch(row.dataset.statusUrl, { headers: { Accept: "application/json" } });
      if (!answer.ok) return true;
      const v = await answer.json();
      status.textContent = v.status;
      status.className = "status " + v.status;
      reason.textContent = v.reason;
      return v.status === "pending";
    }, 1000);
  });
})();
