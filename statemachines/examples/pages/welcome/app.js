/*
 * The example custom page's script: the family's custom page protocol, as a page of a relying
 * party speaks it. It says READY to the journey page that frames it, waits for the PROCESS
 * message (constants and sessionData), and SENDs what the end user chose:
 * preferredName (text), contact ("email" or "phone") and news (a boolean, kept as "true"/"false").
 */
(function () {
  var form = document.getElementById('welcome');
  var name = document.getElementById('preferredName');
  var nameError = document.getElementById('preferredName-error');
  var timeLeft = document.getElementById('time-left');
  var told = null;

  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || data.command !== 'PROCESS' || !data.variables) return;
    told = data.variables;
    var session = told.sessionData || {};
    if (session.firstName) {
      document.getElementById('greeting').textContent = 'Welcome, ' + session.firstName;
      if (!name.value) name.value = session.firstName;
    }
    var seconds = Number((told.constants || {}).timeoutInSeconds);
    if (seconds > 0) {
      var rest = seconds % 60;
      timeLeft.textContent = 'You have ' + Math.floor(seconds / 60) + ' min' + (rest ? ' ' + rest + ' s' : '') + ' for this page.';
      timeLeft.hidden = false;
    }
  });

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var preferredName = name.value.trim();
    nameError.hidden = preferredName !== '';
    name.setAttribute('aria-invalid', String(preferredName === ''));
    if (!preferredName) {
      name.focus();
      return;
    }
    var contact = form.querySelector('input[name=contact]:checked').value;
    window.parent.postMessage({ event: 'SEND', variables: { preferredName: preferredName, contact: contact, news: document.getElementById('news').checked } }, '*');
  });

  window.parent.postMessage({ event: 'READY' }, '*');
})();
