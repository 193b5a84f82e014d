// Claim form: validates the policy number in the page, so the outcome is visible
// as soon as the submit event has run (no network round trip to wait for).
"use strict";

// The policies this demo insurer knows; P-1234 is the one the demo agent uses.
const KNOWN_POLICIES = new Set(["P-1234", "P-2048", "P-7310"]);

const form = document.getElementById("claim-form");
const policy = document.getElementById("policy");
const incidentDate = document.getElementById("incident-date");
const description = document.getElementById("description");
const errorBox = document.getElementById("claim-error");
const resultBox = document.getElementById("claim-result");

function showError(message) {
  resultBox.hidden = true;
  errorBox.textContent = message;
  errorBox.hidden = false;
  policy.setAttribute("aria-invalid", "true");
}

function reference() {
  const digits = String(Date.now() % 1000000).padStart(6, "0");
  return `CLM-${new Date().getFullYear()}-${digits}`;
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const number = policy.value.trim().toUpperCase();
  if (!/^P-\d{4}$/.test(number)) {
    showError(`"${policy.value}" is not a policy number. Policy numbers look like P-1234.`);
    return;
  }
  if (!KNOWN_POLICIES.has(number)) {
    showError(`Policy ${number} was not found. Check the number on your policy documents.`);
    return;
  }
  if (description.value.trim() === "") {
    showError("Please describe what happened.");
    return;
  }
  policy.removeAttribute("aria-invalid");
  errorBox.hidden = true;
  const when = incidentDate.value.trim() || "an unspecified date";
  resultBox.textContent = `Claim received for policy ${number} (incident on ${when}). Claim reference: ${reference()}`;
  resultBox.hidden = false;
});
