// The attach page: post the chosen file as the request body and show the size the desk received.
"use strict";
document.getElementById("attach").addEventListener("submit", async (event) => {
  event.preventDefault();
  const file = document.getElementById("document").files[0];
  if (!file) return;
  const response = await fetch("/api/attach", { method: "POST", body: file });
  const shown = document.getElementById("attached");
  shown.textContent = `Attached: ${(await response.json()).bytes} bytes`;
  shown.hidden = false;
  document.getElementById("after").hidden = false; // the receipt exists once the document is in
});
