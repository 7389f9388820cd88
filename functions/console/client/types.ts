/** The parts of the API's answers the console reads (the OpenAPI document has them whole). */
export interface Instance {
  id: string;
  processDefnId: string;
  processDefnName: string;
  processDefnVersion: number;
  processTokenId: string;
  status: string;
  statusMapped: string;
  createdAt: string;
  lastUpdatedAt: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  phoneNumber?: string;
  expiringDtm?: string;
  review?: { status: string; comment: string; reviewedBy: string; reviewedAt: string };
}

export interface Page<T> {
  content: T[];
  totalElements: number;
  number: number;
  size: number;
  last: boolean;
  nextCursor?: string | null;
  totalElementsCapped?: boolean;
}

export interface Check {
  checkId: string;
  activityId: string;
  checkType: string;
  result: string;
  displayName: string;
  description: string;
  moreinfo?: string;
  checkedAt: string;
  reports: { name: string; result: string; description: string; reportType?: string }[];
}

export interface UserData {
  processInstanceId: string;
  status: string;
  forms: Record<string, Record<string, unknown>>;
  steps: { activityId: string; activityType: string; dataKey: string; submittedAt: string; values: Record<string, unknown> }[];
  checks: Check[];
  images: {
    imageKey: string;
    captureId: string;
    kind: string;
    contentType: string;
    width: number;
    height: number;
    capturedAt: string;
    data?: string;
    url?: string;
  }[];
  summary?: { decision: string | null; writtenAt: string };
}

export interface Webhook {
  id: string;
  url?: string;
  description: string;
  enabled: boolean;
}

/** An instance's event, as its webhooks receive it (GET .../processInstances/{id}/events). */
export interface InstanceEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface Delivery {
  /** Set on the per-instance read (GET /api/webhook-manager/deliveries?processInstanceId=). */
  webhookId?: string;
  eventId: string;
  eventType: string;
  eventTimestamp: string;
  subjectId: string;
  status: string;
  attempts: { at: string; status?: number; error?: string; latencyMs: number }[];
}

export interface Definition {
  id: string;
  name: string;
  version: number;
  description: string;
  status: string;
  retentionDays: number;
  createdDtm: string;
  createdBy: string;
}

export interface ApiKey {
  id: string;
  code: string;
  name: string;
  description: string;
  status: string;
  permissions: string[];
  lastIssuedAtDtm: string | null;
  createdDtm: string;
}
