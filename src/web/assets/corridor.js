// Corridor dashboard and console: progressive enhancement only (every page works without it).
// Served from /assets under a CSP with no inline script.
'use strict';
document.addEventListener('click', function (event) {
  var button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent || '').then(function () {
    button.textContent = 'Copied';
  });
});
document.addEventListener('submit', function (event) {
  var form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  var question = form.getAttribute('data-confirm');
  // {name} in the question: the field's value as typed, or what the change takes when it is empty.
  if (question) {
    question = question
      .replace(/\{([A-Za-z0-9_]+)\}/g, function (_whole, name) {
        var input = form.elements.namedItem(name);
        var typed = input && typeof input.value === 'string' ? input.value.trim() : '';
        return typed || form.getAttribute('data-confirm-' + name.toLowerCase()) || '';
      })
      .replace(/ {2,}/g, ' ');
  }
  if (question && !window.confirm(question)) {
    event.preventDefault();
    return;
  }
  // One submission per form: a double click does not send it twice.
  if (form.dataset.sent === '1') {
    event.preventDefault();
    return;
  }
  if (form.method.toLowerCase() === 'post') form.dataset.sent = '1';
});
