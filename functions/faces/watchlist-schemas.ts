import * as z from '../shared/zod.js';
import { DateTime, queryInt, queryList, text } from '../shared/schemas.js';
import { pageSchema } from '../shared/page.js';
import { MAX_FACE_IMAGE_BYTES } from '../journey/face-limits.js';

const Id = (what: string) => z.withMeta(z.string().check(z.uuid(`must be a ${what} id (a UUID)`)), { description: `The ${what}'s id.` });

export const WatchlistPathSchema = z.strictObject({ watchlistId: Id('watchlist') });
export const WatchlistMemberPathSchema = z.strictObject({ watchlistId: Id('watchlist'), memberId: Id('member') });

export const WatchlistsQuerySchema = z.object({
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: queryList(z.string().check(z.maxLength(100))),
});

const optional = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

export const CreateWatchlistSchema = z.withMeta(
  z.object({
    name: text(1, 100),
    description: optional(text(0, 1000)),
    status: z.withMeta(optional(z.enum(['ACTIVE'], 'must be ACTIVE')), { description: "The family's clients send `ACTIVE`: a watchlist is active from its creation." }),
    type: z.withMeta(optional(z.enum(['FACEV6'], 'must be FACEV6 (a face watchlist)')), { description: "The family's clients send `FACEV6`: every watchlist here is a face watchlist." }),
  }),
  { id: 'FaceWatchlistCreate', description: 'Members not listed here (tenantId, ...) are accepted and ignored.' },
);

/** Base64 (RFC 4648, padded or not) of at most MAX_FACE_IMAGE_BYTES bytes. */
const MAX_IMAGE_BASE64 = Math.ceil(MAX_FACE_IMAGE_BYTES / 3) * 4;
export const AddWatchlistMemberSchema = z.withMeta(
  z.object({
    label: z.withMeta(text(1, 200), { description: 'Who the face is, as the relying party names them: a hit returns it.' }),
    image: z.withMeta(
      z.string().check(
        z.maxLength(MAX_IMAGE_BASE64, `must be at most ${MAX_FACE_IMAGE_BYTES} bytes (${MAX_IMAGE_BASE64} base64 characters)`),
        z.regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64'),
      ),
      { description: `A JPEG or PNG, base64, at most ${MAX_FACE_IMAGE_BYTES} bytes, showing exactly one face.` },
    ),
  }),
  { id: 'FaceWatchlistMemberAdd' },
);

export const WatchlistSchema = z.withMeta(
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    memberCount: z.number().check(z.int()),
    createdDtm: DateTime,
    createdBy: z.string(),
    status: z.withMeta(z.literal('ACTIVE'), { description: "As the family's clients read it." }),
    type: z.withMeta(z.literal('FACEV6'), { description: "As the family's clients read it." }),
    maxSize: z.withMeta(z.number().check(z.int()), { description: 'The most members it takes (the family\'s `maxSize`).' }),
    numMembers: z.withMeta(z.number().check(z.int()), { description: 'Its members (the family\'s name for memberCount).' }),
  }),
  { id: 'FaceWatchlist' },
);
export const WatchlistPageSchema = pageSchema(WatchlistSchema, 'FaceWatchlistPage');

export const WatchlistMemberSchema = z.withMeta(
  z.object({
    id: z.string(),
    watchlistId: z.string(),
    label: z.string(),
    image: z.withMeta(
      z.object({ format: z.enum(['JPEG', 'PNG']), width: z.number().check(z.int()), height: z.number().check(z.int()), bytes: z.number().check(z.int()), sha256: z.string() }),
      { description: 'What the image was; the image itself is not kept, only its face template.' },
    ),
    createdDtm: DateTime,
    createdBy: z.string(),
  }),
  { id: 'FaceWatchlistMember' },
);
export const WatchlistMemberPageSchema = pageSchema(WatchlistMemberSchema, 'FaceWatchlistMemberPage');
