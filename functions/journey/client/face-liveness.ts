/**
 * The capture page under Rekognition Face Liveness (Liveness Check REKOGNITION; the page is
 * functions/journey/screens/face-capture.ts renderRekognition). Start asks the server for a
 * session (its id, the region, and credentials good for nothing but its stream), then mounts
 * Amazon's FaceLivenessDetectorCore on the stage; the component runs the camera, the oval, its
 * instructions and the stream. When it says the analysis is complete, the session's id goes into
 * the form and the form is sent: the server reads the result. A cancel or an error takes the
 * page back to Start (a new session each time; the server counts them).
 */
import { createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { FaceLivenessDetectorCore } from '@aws-amplify/ui-react-liveness';
import styles from '@aws-amplify/ui-react-liveness/styles.css';
import { GERMAN_LIVENESS_TEXT } from './face-liveness-de.js';

interface Session {
  sessionId: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string; expiration: string };
}

const form = document.getElementById('face-form') as HTMLFormElement | null;
const start = document.getElementById('face-liveness-start') as HTMLButtonElement | null;
const stage = document.getElementById('face-liveness') as HTMLDivElement | null;
const status = document.getElementById('face-status');
const field = document.getElementById('face-liveness-session') as HTMLInputElement | null;

function say(text: string | undefined): void {
  if (status) status.textContent = text ?? '';
}

if (form && start && stage && field && status) {
  // The component's style sheet, once (the pages allow inline styles; one script to serve).
  const sheet = document.createElement('style');
  sheet.textContent = styles;
  document.head.append(sheet);
  start.hidden = false;
  let root: Root | undefined;

  const reset = (message?: string) => {
    root?.unmount();
    root = undefined;
    stage.hidden = true;
    start.hidden = false;
    start.disabled = false;
    say(message);
    start.focus();
  };

  start.addEventListener('click', async () => {
    const consent = document.getElementById('face-consent') as HTMLInputElement | null;
    if (consent && !consent.checked) {
      say(status.dataset.consent);
      consent.focus();
      return;
    }
    start.disabled = true;
    say('');
    let session: Session;
    try {
      const answer = await fetch(form.dataset.sessionUrl ?? '', { method: 'POST', credentials: 'omit', cache: 'no-store' });
      if (answer.status === 429) return reset(status.dataset.limit);
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      session = (await answer.json()) as Session;
    } catch {
      return reset(status.dataset.failed);
    }
    const credentials = {
      accessKeyId: session.credentials.accessKeyId,
      secretAccessKey: session.credentials.secretAccessKey,
      sessionToken: session.credentials.sessionToken,
      expiration: new Date(session.credentials.expiration),
    };
    start.hidden = true;
    stage.hidden = false;
    root = createRoot(stage);
    root.render(
      createElement(FaceLivenessDetectorCore, {
        sessionId: session.sessionId,
        region: session.region,
        config: { credentialProvider: async () => credentials },
        ...(form.dataset.lang === 'de' ? { displayText: GERMAN_LIVENESS_TEXT } : {}),
        onAnalysisComplete: async () => {
          field.value = session.sessionId;
          say(status.dataset.sending);
          form.requestSubmit();
        },
        onUserCancel: () => reset(),
        onError: () => reset(status.dataset.stopped),
      }),
    );
  });
}
