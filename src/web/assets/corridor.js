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
  if (question && !window.confirm(question)) {
    event.preventDefault();
    return;
  }
  // One submission per form: a double click does not send it twice.
  if (form.dataset.sent === '1') {
    event.preventDefault();
    return;
  }
  // getAttribute, not form.method: a field named "method" (the audit-log filter) hides the property.
  if ((form.getAttribute('method') || 'get').toLowerCase() === 'post') form.dataset.sent = '1';
  var progress = form.getAttribute('data-progress');
  if (progress) {
    var line = document.createElement('p');
    line.setAttribute('role', 'status');
    var bar = document.createElement('progress');
    bar.setAttribute('aria-label', progress);
    line.appendChild(bar);
    line.appendChild(document.createTextNode(' ' + progress));
    form.appendChild(line);
  }
});

// Parts of a page that follow something still moving (data-live): fetched again until settled.
(function () {
  var LIVE_POLLS_MAX = 40;
  var LIVE_DELAY_MS = 1500;
  function follow(id, polls) {
    if (polls >= LIVE_POLLS_MAX) return;
    setTimeout(function () {
      fetch(window.location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
        .then(function (res) {
          return res.ok ? res.text() : '';
        })
        .then(function (text) {
          var current = document.getElementById(id);
          var fresh = text ? new DOMParser().parseFromString(text, 'text/html').getElementById(id) : null;
          if (!current || !fresh) return;
          current.replaceWith(document.importNode(fresh, true));
          if (fresh.hasAttribute('data-live')) follow(id, polls + 1);
        })
        .catch(function () {});
    }, LIVE_DELAY_MS);
  }
  function start() {
    var parts = document.querySelectorAll('[data-live][id]');
    for (var i = 0; i < parts.length; i++) follow(parts[i].id, 0);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
