/**
 * The document capture page's script, bundled for the browser into assets.generated.ts (`npm
 * run build:assets`). It is an enhancement: without it the page is a file upload that still
 * works. With it, and unless the step asks for the device's own camera app (`data-native`), the
 * page offers the back camera in the page, with a guide over the view at the document's shape
 * (`data-aspect`, its margin `data-tolerance`, turned upright for `data-orientation` PORTRAIT).
 * The photo taken is encoded in the step's format at most 2560 px on its longer side, shown for
 * the end user to use or take again, and put in the form's file field, so the same form post
 * sends it. A chosen file is re-encoded the same way on the device (which drops its metadata,
 * location included) and shown before it is sent.
 */
const DOC_MAX_SIDE = 2560;

const docForm = document.getElementById('doc-form') as HTMLFormElement | null;
if (docForm) {
  const form = docForm;
  const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const input = byId<HTMLInputElement>('doc-file');
  const camera = byId<HTMLElement>('doc-camera');
  const start = byId<HTMLButtonElement>('doc-start');
  const view = byId<HTMLElement>('doc-view');
  const video = byId<HTMLVideoElement>('doc-video');
  const guide = byId<HTMLElement>('doc-guide');
  const guideText = byId<HTMLElement>('doc-guide-text');
  const shoot = byId<HTMLButtonElement>('doc-shoot');
  const status = byId<HTMLElement>('doc-status');
  const previewBox = byId<HTMLElement>('doc-preview-box');
  const preview = byId<HTMLImageElement>('doc-preview');
  const confirm = byId<HTMLButtonElement>('doc-confirm');
  const retake = byId<HTMLButtonElement>('doc-retake');
  const fileField = byId<HTMLElement>('doc-file-field');
  const send = byId<HTMLButtonElement>('doc-send');
  const chosen = byId<HTMLImageElement>('doc-chosen');
  const source = byId<HTMLInputElement>('doc-source');
  const maxBytes = Number(form.dataset.maxBytes);
  const type = form.dataset.format === 'PNG' ? 'image/png' : 'image/jpeg';
  const canPlaceFile = typeof DataTransfer === 'function';
  const positive = (v: string | undefined, fallback: number) => (Number(v) > 0 ? Number(v) : fallback);
  const cameraWidth = positive(form.dataset.cameraWidth, 2560);
  const cameraHeight = positive(form.dataset.cameraHeight, 1440);
  const cameraTimeout = positive(form.dataset.cameraTimeout, 60);
  const aspect = positive(form.dataset.aspect, 1.58);
  const tolerance = Math.min(0.3, Math.max(0, Number(form.dataset.tolerance) || 0));
  const portrait = form.dataset.orientation === 'PORTRAIT';
  let stream: MediaStream | null = null;
  let cameraTimer: ReturnType<typeof setTimeout> | undefined;
  const show = (el: HTMLElement, on: boolean) => {
    el.hidden = !on;
  };

  // The guide: the document's shape (upright when PORTRAIT), as wide as the view less the margin on each side.
  guide.style.aspectRatio = String(portrait ? 1 / aspect : aspect);
  guide.style.width = `${Math.round((1 - 2 * tolerance) * (portrait ? 60 : 100))}%`;

  const stopCamera = () => {
    clearTimeout(cameraTimer);
    stream?.getTracks().forEach((t) => t.stop());
    stream = null;
  };
  const encode = (from: CanvasImageSource, width: number, height: number) => {
    const scale = Math.min(1, DOC_MAX_SIDE / Math.max(width, height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    canvas.getContext('2d')!.drawImage(from, 0, 0, canvas.width, canvas.height);
    return new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, 0.92));
  };
  const placeFile = (blob: Blob, from: 'camera' | 'file') => {
    const dt = new DataTransfer();
    dt.items.add(new File([blob], type === 'image/png' ? 'document.png' : 'document.jpg', { type }));
    input.files = dt.files;
    source.value = from;
  };
  const clearError = () => {
    form.querySelector('.summary[role=alert]')?.remove();
    document.getElementById('doc-file-error')?.remove();
    fileField.classList.remove('invalid');
    input.removeAttribute('aria-invalid');
    input.setAttribute('aria-describedby', 'doc-file-hint');
  };
  const showImage = (img: HTMLImageElement, blob: Blob) => {
    if (img.src) URL.revokeObjectURL(img.src);
    img.src = URL.createObjectURL(blob);
    show(img, true);
  };
  const cameraOff = (message: string | undefined) => {
    stopCamera();
    show(view, false);
    show(guideText, false);
    show(shoot, false);
    show(start, true);
    if (message !== undefined) status.textContent = message;
  };

  if (form.dataset.native !== 'true' && canPlaceFile && navigator.mediaDevices?.getUserMedia) {
    show(camera, true);
    start.addEventListener('click', () => {
      status.textContent = '';
      navigator.mediaDevices
        .getUserMedia({ video: { facingMode: { ideal: 'environment' }, width: { ideal: cameraWidth }, height: { ideal: cameraHeight } }, audio: false })
        .then((s) => {
          stream = s;
          video.srcObject = s;
          clearTimeout(cameraTimer);
          cameraTimer = setTimeout(() => {
            if (stream) cameraOff(status.dataset.stopped);
          }, cameraTimeout * 1000);
          return video.play();
        })
        .then(() => {
          show(start, false);
          show(previewBox, false);
          show(view, true);
          show(guideText, true);
          show(shoot, true);
          shoot.focus();
        })
        .catch(() => {
          stopCamera();
          show(start, false);
          status.textContent = status.dataset.failed ?? '';
          input.focus();
        });
    });
    shoot.addEventListener('click', () => {
      if (!video.videoWidth) return;
      void encode(video, video.videoWidth, video.videoHeight).then((blob) => {
        if (!blob) return;
        placeFile(blob, 'camera');
        clearError();
        showImage(preview, blob);
        cameraOff(status.dataset.taken);
        show(start, false);
        // The preview: use this photo, or take it again. The file field and its Continue wait behind it.
        show(previewBox, true);
        show(fileField, false);
        show(send, false);
        confirm.focus();
      });
    });
    retake.addEventListener('click', () => {
      input.value = '';
      source.value = 'file';
      show(previewBox, false);
      show(fileField, true);
      show(send, true);
      start.click();
    });
  }

  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (!file) return;
    clearError();
    source.value = 'file';
    if (!canPlaceFile || typeof createImageBitmap !== 'function') {
      showImage(chosen, file);
      return;
    }
    createImageBitmap(file)
      .then((bitmap) => encode(bitmap, bitmap.width, bitmap.height))
      .then((blob) => {
        if (blob && blob.size <= maxBytes) {
          placeFile(blob, 'file');
          showImage(chosen, blob);
        } else showImage(chosen, file);
      })
      .catch(() => {
        // Not an image the browser can read: sent as chosen, and the server says why it is refused.
        show(chosen, false);
      });
  });
  form.addEventListener('submit', stopCamera);
}
