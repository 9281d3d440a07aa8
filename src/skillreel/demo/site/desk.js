// Invoice Desk page logic: search on Enter, filter by region, approve one invoice.
(() => {
  const variant = document.currentScript.dataset.variant;
  const query = document.querySelector("input[type=search]");
  const region = document.querySelector("select");
  const results = document.getElementById("results");
  const confirmation = document.getElementById("confirmation");
  let lastQuery = null;

  async function search() {
    const params = new URLSearchParams({q: lastQuery || "", region: region.value});
    const response = await fetch("/api/invoices?" + params.toString());
    const invoices = await response.json();
    results.replaceChildren(...invoices.map(render));
    results.dataset.state = "loaded";
  }

  function render(invoice) {
    const item = document.createElement("li");
    const text = document.createElement("span");
    text.textContent = `${invoice.id} · ${invoice.supplier} · ${invoice.amount}`;
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Approve";
    if (variant === "ambiguous") {
      button.className = "approve";
    } else {
      button.dataset.testid = variant === "redesign" ? "approve-invoice" : "approve";
      button.className = variant === "redesign" ? "btn btn-approve" : "approve";
    }
    if (variant === "redesign") {
      button.setAttribute("aria-label", `Approve ${invoice.id}`);  // a name that says which invoice
    }
    button.addEventListener("click", async () => {
      const response = await fetch("/api/approve", {method: "POST", body: JSON.stringify({id: invoice.id})});
      const body = await response.json();
      confirmation.textContent = `Invoice ${body.id} approved`;
      confirmation.hidden = false;
    });
    if (variant === "redesign") {
      const actions = document.createElement("div");
      actions.className = "actions";
      actions.append(button);
      item.append(text, actions);
    } else {
      item.append(text, button);
    }
    return item;
  }

  query.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      lastQuery = query.value;
      search();
    }
  });
  region.addEventListener("change", () => { if (lastQuery !== null) search(); });
})();
