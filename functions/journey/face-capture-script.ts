/**
 * The face capture page's script, served by getJourneyAsset from the service's own origin (the
 * pages' CSP allows no other script). It is an enhancement: without it the page is a file
 * upload that still works. With it, the page offers the camera (getUserMedia, front camera);
 * the photo taken is drawn to a canvas, encoded as a JPEG of at most 1280 px, and put into the
 * form's file field, so the same form post sends it. A chosen file is re-encoded the same way
 * on the device, which keeps it under the size limit and drops its metadata (location
 * included) before it is sent.
 */
export const FACE_CAPTURE_JS = `'use strict';
(function () {
  var form = document.getElementById('face-form');
  if (!form) return;
  var byId = function (id) { return document.getElementById(id); };
  var input = byId('face-file'), camera = byId('face-camera'), start = byId('face-start'), video = byId('face-video');
  var preview = byId('face-preview'), shoot = byId('face-shoot'), retake = byId('face-retake'), status = byId('face-status');
  var maxBytes = Number(form.getAttribute('data-max-bytes'));
  var MAX_SIDE = 1280;
  var stream = null;
  var show = function (el, on) { el.hidden = !on; };
  var canPlaceFile = typeof DataTransfer === 'function';

  function stopCamera() {
    if (stream) stream.getTracks().forEach(function (t) { t.stop(); });
    stream = null;
  }
  function toJpeg(source, width, height) {
    var scale = Math.min(1, MAX_SIDE / Math.max(width, height));
    var canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    canvas.getContext('2d').drawImage(source, 0, 0, canvas.width, canvas.height);
    return new Promise(function (resolve) { canvas.toBlob(resolve, 'image/jpeg', 0.9); });
  }
  function placeFile(blob) {
    var dt = new DataTransfer();
    dt.items.add(new File([blob], 'face.jpg', { type: 'image/jpeg' }));
    input.files = dt.files;
  }

  if (canPlaceFile && navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
    show(camera, true);
    start.addEventListener('click', function () {
      status.textContent = '';
      navigator.mediaDevices
        .getUserMedia({ video: { facingMode: 'user', width: { ideal: 1280 }, height: { ideal: 960 } }, audio: false })
        .then(function (s) {
          stream = s;
          video.srcObject = s;
          return video.play();
        })
        .then(function () {
          show(start, false); show(preview, false); show(retake, false); show(video, true); show(shoot, true);
          shoot.focus();
        })
        .catch(function () {
          stopCamera();
          show(start, false);
          status.textContent = status.getAttribute('data-failed');
          input.focus();
        });
    });
    shoot.addEventListener('click', function () {
      if (!video.videoWidth) return;
      toJpeg(video, video.videoWidth, video.videoHeight).then(function (blob) {
        if (!blob) return;
        placeFile(blob);
        if (preview.src) URL.revokeObjectURL(preview.src);
        preview.src = URL.createObjectURL(blob);
        stopCamera();
        show(video, false); show(shoot, false); show(preview, true); show(retake, true);
        status.textContent = status.getAttribute('data-taken');
        form.querySelector('button[type=submit]').focus();
      });
    });
    retake.addEventListener('click', function () {
      input.value = '';
      show(retake, false);
      start.click();
    });
  }

  input.addEventListener('change', function () {
    var file = input.files && input.files[0];
    if (!file || !canPlaceFile || typeof createImageBitmap !== 'function') return;
    createImageBitmap(file)
      .then(function (bitmap) { return toJpeg(bitmap, bitmap.width, bitmap.height); })
      .then(function (blob) { if (blob && blob.size <= maxBytes) placeFile(blob); })
      .catch(function () { /* not an image the browser can read: sent as chosen, and the server says why it is refused */ });
  });
  form.addEventListener('submit', stopCamera);
})();
`;
