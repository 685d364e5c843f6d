// Confirmation dialogs on the native <dialog>: modal, Escape cancels, focus
// starts on the safe choice and returns where it was.

import { h } from "./elements.js";

// confirm shows a modal dialog with title, content (nodes) and two
// buttons; it resolves to true when the user confirms. check, when given,
// runs before confirming and may return a message that keeps the dialog
// open (e.g. no outcome picked).
export function confirm({ title, content = [], confirmLabel = "Confirm", danger = false, check }) {
  return new Promise((resolve) => {
    const back = document.activeElement;
    const titleID = `dlg-title-${Date.now()}`;
    const error = h("p", { class: "error", role: "alert" });
    const cancel = h("button", { type: "button", class: "secondary", autofocus: true }, "Back");
    const ok = h("button", { type: "button", class: danger ? "danger" : "primary", "data-confirm": true }, confirmLabel);
    const dlg = h("dialog", { class: "dialog", "aria-labelledby": titleID },
      h("h2", { id: titleID }, title),
      h("div", { class: "dialog-body" }, content),
      error,
      h("div", { class: "buttons" }, cancel, ok));
    let confirmed = false;
    cancel.addEventListener("click", () => dlg.close());
    ok.addEventListener("click", () => {
      const msg = check?.();
      if (msg) {
        error.textContent = msg;
        return;
      }
      confirmed = true;
      dlg.close();
    });
    dlg.addEventListener("close", () => {
      dlg.remove();
      if (back instanceof HTMLElement && back.isConnected) back.focus();
      resolve(confirmed);
    });
    document.body.append(dlg);
    dlg.showModal();
  });
}
