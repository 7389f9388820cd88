/**
 * Definition: publish a journey in the service's JSON format (docs/journeys.md), then read its
 * versions. Here: a face capture and a decision (the repository's identity-check example without
 * its data form), under a name of your own.
 */
import type { ArthrClient, Schema } from '../src/index.js';

export function identityCheck(name: string): Schema<'ProcessDefinitionCreate'> {
  return {
    name,
    version: 1,
    description: 'A live face capture; PASS when the face check passed.',
    retentionDays: 90,
    startActivityId: 'captureFace',
    activities: {
      captureFace: { type: 'CAPTURE_FACE_IMAGE', name: 'Capture face', inputs: { 'Face Key': 'face' }, next: 'decide' },
      decide: {
        type: 'SIMPLE_DECIDER',
        name: 'Decision',
        rules: [
          { when: { errorEvent: true }, outcome: 'FAIL' },
          { when: { variable: '_checks.face.result', equals: 'PASS' }, outcome: 'PASS' },
        ],
        default: 'REVIEW',
      },
    },
  };
}

export async function publishDefinition(client: ArthrClient, definition: Schema<'ProcessDefinitionCreate'>) {
  const { data, error, response } = await client.POST('/api/process-manager/processDefinitions', { body: definition });
  if (error) throw new Error(`${response.status} ${error.code}: ${error.message}`);
  // data: the ProcessDefinition, its id the processDefnId of the instances it runs.
  const versions = await client.GET('/api/process-manager/processDefinitions/{processDefinitionId}/versions', {
    params: { path: { processDefinitionId: data.name } },
  });
  return { id: data.id, status: data.status, versions: versions.data?.content.map((v) => v.version) ?? [] };
}
