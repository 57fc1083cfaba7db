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
  // A download (data-download) changes nothing and leaves the page as it is: it may be sent again.
  if (form.hasAttribute('data-download')) return;
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
          document.dispatchEvent(new CustomEvent('corridor:updated'));
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

// On a narrow screen the navigation starts folded behind its Menu button (a <details>, open without scripts).
(function () {
  var menu = document.querySelector('details.menu');
  if (menu && window.matchMedia && window.matchMedia('(max-width: 48rem)').matches) menu.removeAttribute('open');
})();

// Amounts grouped in the reader's locale (ISO code kept, exact decimals kept); times in the reader's
// time zone, UTC on hover. The page as sent (UTC, plain decimals) is what shows without scripts.
(function () {
  function localize() {
    var amounts = document.querySelectorAll('.money[data-amount]');
    for (var i = 0; i < amounts.length; i++) {
      var el = amounts[i];
      var exact = el.getAttribute('data-amount') || '';
      var match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(exact);
      if (!match || el.getAttribute('data-local')) continue;
      var decimals = (match[3] || '').length;
      var grouped = new Intl.NumberFormat(undefined, { useGrouping: true, maximumFractionDigits: 0 }).format(BigInt(match[2]));
      var point = (new Intl.NumberFormat(undefined).formatToParts(1.5).find(function (p) { return p.type === 'decimal'; }) || { value: '.' }).value;
      var code = el.textContent.replace(/^[^\u00a0]*\u00a0?/, '');
      el.textContent = match[1] + grouped + (decimals ? point + match[3] : '') + '\u00a0' + code;
      el.setAttribute('data-local', '1');
      el.setAttribute('title', exact + ' ' + code);
    }
    var times = document.querySelectorAll('time[datetime]');
    var format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
    for (var j = 0; j < times.length; j++) {
      var t = times[j];
      var at = new Date(t.getAttribute('datetime'));
      if (isNaN(at.getTime()) || t.getAttribute('data-local')) continue;
      t.textContent = format.format(at);
      t.setAttribute('data-local', '1');
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', localize);
  else localize();
  document.addEventListener('corridor:updated', localize);
})();
