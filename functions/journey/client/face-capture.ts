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
if (form?.dataset.challengeUrl) runChallenge(form, form.dataset.challengeUrl);
else if (form) {
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

/** A challenge as the server draws it (functions/faces/challenge.ts). */
interface Plan {
  nonce: string;
  durationMs: number;
  frameMaxSide: number;
  segments: { kind: 'neutral' | 'colour' | 'prompt'; from: number; to: number; rgb?: [number, number, number]; prompt?: string }[];
  frames: number[];
}

/**
 * Liveness Check ACTIVE: Start asks the server for a challenge, opens the front camera and, from
 * its first frame, plays the challenge full screen: the instruction of each moment in words (also
 * announced), the screen's colour, and at each time of the schedule a frame of at most the plan's
 * size (the photo, at up to 1280 px, with the second). Then the camera goes off and the form
 * sends the photo, the frames, their times and the nonce. What fails (no camera, not allowed, no
 * challenge) leaves the page as it was, saying so; Start tries again with a new challenge.
 */
function runChallenge(form: HTMLFormElement, url: string) {
  const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const start = byId<HTMLButtonElement>('face-challenge-start');
  const stage = byId<HTMLElement>('face-stage');
  const video = byId<HTMLVideoElement>('face-video');
  const prompt = byId<HTMLElement>('face-prompt');
  const status = byId<HTMLElement>('face-status');
  const stillInput = byId<HTMLInputElement>('face-file');
  const framesInput = byId<HTMLInputElement>('face-frames');
  const prompts = JSON.parse(prompt.dataset.prompts ?? '{}') as Record<string, string>;
  if (typeof DataTransfer !== 'function' || !navigator.mediaDevices?.getUserMedia || typeof fetch !== 'function') {
    status.textContent = status.dataset.failed ?? '';
    return;
  }
  start.hidden = false;
  let stream: MediaStream | null = null;
  const stop = () => {
    stream?.getTracks().forEach((t) => t.stop());
    stream = null;
    stage.hidden = true;
    stage.style.background = '';
  };
  const grab = (maxSide: number) => {
    const scale = Math.min(1, maxSide / Math.max(video.videoWidth, video.videoHeight));
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext('2d')!.drawImage(video, 0, 0, canvas.width, canvas.height);
    return new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.85));
  };
  const firstFrame = () =>
    new Promise<void>((resolve) => {
      const frames = video as HTMLVideoElement & { requestVideoFrameCallback?: (cb: () => void) => number };
      if (typeof frames.requestVideoFrameCallback === 'function') frames.requestVideoFrameCallback(() => resolve());
      else if (video.readyState >= 2) resolve();
      else video.addEventListener('loadeddata', () => resolve(), { once: true });
    });
  const show = (segment: Plan['segments'][number]) => {
    stage.style.background = segment.kind === 'colour' && segment.rgb ? `rgb(${segment.rgb.join(',')})` : '#fff';
    prompt.textContent = segment.kind === 'prompt' ? (prompts[segment.prompt ?? ''] ?? '') : segment.kind === 'colour' ? (prompt.dataset.colours ?? '') : (prompt.dataset.hold ?? '');
  };

  start.addEventListener('click', () => {
    if (start.getAttribute('aria-busy') === 'true') return;
    start.setAttribute('aria-busy', 'true');
    status.textContent = '';
    void (async () => {
      try {
        const res = await fetch(url, { method: 'POST', credentials: 'same-origin' });
        if (!res.ok) throw new Error(`challenge ${res.status}`);
        const plan = (await res.json()) as Plan;
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'user', width: { ideal: 1280 }, height: { ideal: 720 } }, audio: false });
        video.srcObject = stream;
        stage.hidden = false;
        show(plan.segments[0]!);
        await video.play();
        await firstFrame();
        const t0 = performance.now();
        const at = (ms: number, run: () => void) => setTimeout(run, Math.max(0, t0 + ms - performance.now()));
        for (const segment of plan.segments) at(segment.from, () => show(segment));
        const frames: { at: number; blob: Blob | null }[] = [];
        let still: Promise<Blob | null> = Promise.resolve(null);
        const taken: Promise<unknown>[] = [];
        plan.frames.forEach((ms, i) =>
          at(ms, () => {
            const when = Math.round(performance.now() - t0);
            taken.push(grab(plan.frameMaxSide).then((blob) => (frames[i] = { at: when, blob })));
            if (i === 1) still = grab(1280);
          }),
        );
        await new Promise((resolve) => at(plan.durationMs + 150, () => resolve(undefined)));
        await Promise.all(taken);
        const photo = await still;
        stop();
        if (!photo || frames.length !== plan.frames.length || frames.some((f) => !f?.blob)) throw new Error('frames missing');
        const stills = new DataTransfer();
        stills.items.add(new File([photo], 'face.jpg', { type: 'image/jpeg' }));
        stillInput.files = stills.files;
        const all = new DataTransfer();
        frames.forEach((f, i) => all.items.add(new File([f.blob!], `frame-${i}.jpg`, { type: 'image/jpeg' })));
        framesInput.files = all.files;
        byId<HTMLInputElement>('face-nonce').value = plan.nonce;
        byId<HTMLInputElement>('face-times').value = frames.map((f) => f.at).join(',');
        status.textContent = status.dataset.sending ?? '';
        form.submit();
      } catch {
        stop();
        start.removeAttribute('aria-busy');
        status.textContent = status.dataset.failed ?? '';
      }
    })();
  });
}
