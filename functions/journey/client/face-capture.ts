/**
 * The face capture page's script, bundled for the browser into assets.generated.ts (`npm run
 * build:assets`). It is an enhancement: without it the page is a file upload that still works.
 * With it, the page offers the camera (getUserMedia, front camera); the photo taken is drawn to
 * a canvas, encoded in the step's Image Format (JPEG by default) of at most 1280 px, and put into the form's file field, so the
 * same form post sends it. A chosen file is re-encoded the same way on the device, which keeps
 * it under the size limit and drops its metadata (location included) before it is sent, and is
 * shown before it is sent. Choosing or taking a new photo clears the last one's error. Under
 * Require Live Camera (`data-live-only`) there is no file to choose: a photo the camera took is
 * marked (`source=camera`), and a page with no camera says so.
 */
const MAX_SIDE = 1280;

const form = document.getElementById('face-form') as HTMLFormElement | null;
if (form) {
  const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const input = byId<HTMLInputElement>('face-file');
  const camera = byId<HTMLElement>('face-camera');
  const start = byId<HTMLButtonElement>('face-start');
  const video = byId<HTMLVideoElement>('face-video');
  const preview = byId<HTMLImageElement>('face-preview');
  const shoot = byId<HTMLButtonElement>('face-shoot');
  const retake = byId<HTMLButtonElement>('face-retake');
  const status = byId<HTMLElement>('face-status');
  const chosen = document.getElementById('face-chosen') as HTMLImageElement | null;
  const source = byId<HTMLInputElement>('face-source');
  const liveOnly = form.dataset.liveOnly === 'true';
  const maxBytes = Number(form.dataset.maxBytes);
  const type = form.dataset.format === 'PNG' ? 'image/png' : 'image/jpeg';
  const canPlaceFile = typeof DataTransfer === 'function';
  let stream: MediaStream | null = null;
  // The step's Camera Width / Height and Timeout (in seconds), with the family's defaults.
  const positive = (v: string | undefined, fallback: number) => (Number(v) > 0 ? Number(v) : fallback);
  const cameraWidth = positive(form.dataset.cameraWidth, 1280);
  const cameraHeight = positive(form.dataset.cameraHeight, 720);
  const cameraTimeout = positive(form.dataset.cameraTimeout, 60);
  let cameraTimer: ReturnType<typeof setTimeout> | undefined;
  const show = (el: HTMLElement, on: boolean) => {
    el.hidden = !on;
  };

  const stopCamera = () => {
    clearTimeout(cameraTimer);
    stream?.getTracks().forEach((t) => t.stop());
    stream = null;
  };
  const toJpeg = (source: CanvasImageSource, width: number, height: number) => {
    const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    canvas.getContext('2d')!.drawImage(source, 0, 0, canvas.width, canvas.height);
    return new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, 0.9));
  };
  const placeFile = (blob: Blob, from: 'camera' | 'file') => {
    const dt = new DataTransfer();
    dt.items.add(new File([blob], type === 'image/png' ? 'face.png' : 'face.jpg', { type }));
    input.files = dt.files;
    source.value = from;
  };
  // A new photo: the last one's error no longer applies (the summary, the field's message and its marks).
  const clearError = () => {
    form.querySelector('.summary[role=alert]')?.remove();
    document.getElementById('face-file-error')?.remove();
    input.closest('.field')?.classList.remove('invalid');
    input.removeAttribute('aria-invalid');
    input.setAttribute('aria-describedby', 'face-file-hint');
  };
  const showChosen = (blob: Blob) => {
    if (!chosen) return;
    if (chosen.src) URL.revokeObjectURL(chosen.src);
    chosen.src = URL.createObjectURL(blob);
    show(chosen, true);
  };

  if (canPlaceFile && navigator.mediaDevices?.getUserMedia) {
    show(camera, true);
    start.addEventListener('click', () => {
      status.textContent = '';
      navigator.mediaDevices
        .getUserMedia({ video: { facingMode: 'user', width: { ideal: cameraWidth }, height: { ideal: cameraHeight } }, audio: false })
        .then((s) => {
          stream = s;
          video.srcObject = s;
          // The step's "Timeout (in seconds)": the camera goes off when no photo is taken by then.
          clearTimeout(cameraTimer);
          cameraTimer = setTimeout(() => {
            if (!stream) return;
            stopCamera();
            show(video, false);
            show(shoot, false);
            show(start, true);
            status.textContent = status.dataset.stopped ?? '';
          }, cameraTimeout * 1000);
          return video.play();
        })
        .then(() => {
          show(start, false);
          show(preview, false);
          show(retake, false);
          show(video, true);
          show(shoot, true);
          shoot.focus();
        })
        .catch(() => {
          stopCamera();
          show(start, false);
          status.textContent = status.dataset.failed ?? '';
          if (!liveOnly) input.focus();
        });
    });
    shoot.addEventListener('click', () => {
      if (!video.videoWidth) return;
      void toJpeg(video, video.videoWidth, video.videoHeight).then((blob) => {
        if (!blob) return;
        placeFile(blob, 'camera');
        clearError();
        if (preview.src) URL.revokeObjectURL(preview.src);
        preview.src = URL.createObjectURL(blob);
        stopCamera();
        show(video, false);
        show(shoot, false);
        show(preview, true);
        show(retake, true);
        status.textContent = status.dataset.taken ?? '';
        (form.querySelector('button[type=submit]') as HTMLButtonElement).focus();
      });
    });
    retake.addEventListener('click', () => {
      input.value = '';
      source.value = 'file';
      show(retake, false);
      start.click();
    });
  } else if (liveOnly) {
    // No camera in this browser: the step cannot be done here, and the page says so.
    show(camera, true);
    show(start, false);
    status.textContent = status.dataset.failed ?? '';
  }

  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (!file) return;
    clearError();
    source.value = 'file';
    if (!canPlaceFile || typeof createImageBitmap !== 'function') {
      showChosen(file);
      return;
    }
    createImageBitmap(file)
      .then((bitmap) => toJpeg(bitmap, bitmap.width, bitmap.height))
      .then((blob) => {
        if (blob && blob.size <= maxBytes) {
          placeFile(blob, 'file');
          showChosen(blob);
        } else showChosen(file);
      })
      .catch(() => {
        // Not an image the browser can read: sent as chosen, and the server says why it is refused.
        if (chosen) show(chosen, false);
      });
  });
  form.addEventListener('submit', stopCamera);
}
