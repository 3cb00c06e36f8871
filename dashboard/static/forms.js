// Selects marked data-autosubmit submit their form on change (a button without JS).
document.querySelectorAll("select[data-autosubmit]").forEach((select) =>
  select.addEventListener("change", () => select.form.submit())
);
