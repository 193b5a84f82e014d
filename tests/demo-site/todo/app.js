// To-do list: items live in the page only; the count is what the demo agent checks.
"use strict";

const form = document.getElementById("add-form");
const field = document.getElementById("new-item");
const list = document.getElementById("items");
const count = document.getElementById("count");

function renderCount() {
  const n = list.children.length;
  count.textContent = n === 1 ? "1 item" : `${n} items`;
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = field.value.trim();
  if (text === "") {
    field.focus();
    return;
  }
  const item = document.createElement("li");
  item.textContent = text;
  list.appendChild(item);
  field.value = "";
  field.focus();
  renderCount();
});

renderCount();
