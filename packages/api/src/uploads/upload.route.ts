/**
 * POST /api/admin/upload-video (multipart: title, description, model, duration, accessLevel, tags,
 * categories, video, thumbnail) → `{ videoId }`. The body streams to disk, then `ingestVideoFile`
 * checks the bytes and records the upload; staged files never outlive the request.
 */
import { uploadedVideoSchema } from '@members/ui/api/schemas';
import { ingestVideoFile, UPLOAD_REQUIRED_MESSAGE } from '../catalog/index.js';
import { callerOf } from '../http/auth.js';
import { HttpError, ok } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { trackUploads } from '../metrics/index.js';
import { receiveMultipart } from './multipartUpload.js';

export const multipartUploadRoutes: Routes = (api, ctx) => {
  const uploadVideoDoc = describe({
    summary: 'Upload a video in one multipart request',
    description:
      'Streamed to disk (never buffered), up to `MAX_UPLOAD_BYTES` (413 beyond, nothing kept); ffprobe must find a video stream (400 otherwise). Send the text fields before the files. For a resumable upload use the tus endpoint /admin/uploads.',
    tags: ['catalog', 'admin'],
    access: 'admin',
    permission: 'videos',
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['title', 'video'],
            properties: {
              title: { type: 'string', maxLength: 200 },
              description: { type: 'string' },
              model: { type: 'string' },
              duration: { type: 'string', description: 'mm:ss, used when ffprobe finds none' },
              accessLevel: { type: 'string', enum: ['free', 'premium', 'vip'] },
              tags: { type: 'string', description: 'Comma-separated (or the field repeated)' },
              categories: { type: 'string', description: 'Comma-separated (or the field repeated)' },
              exclusiveTo: { type: 'string', enum: ['annual', ''], description: '`annual`: behind-the-scenes, annual subscribers only' },
              publishAt: {
                type: 'string',
                format: 'date-time',
                description: 'Schedule the release (ISO 8601 with an offset): a future time keeps the video hidden from members until then',
              },
              video: { type: 'string', contentMediaType: 'application/octet-stream' },
              thumbnail: { type: 'string', contentMediaType: 'application/octet-stream' },
            },
          },
        },
      },
    },
    ok: { 201: uploadedVideoSchema },
    errors: [400, 413],
  });

  api.use('/admin/upload-video', trackUploads(ctx.metrics));
  api.post('/admin/upload-video', uploadVideoDoc, async function uploadVideo(c) {
    const received = await receiveMultipart(c, ctx.media, ctx.env.MAX_UPLOAD_BYTES);
    if (!received.ok) throw new HttpError(received.error);
    const { fields, files, cleanup } = received.upload;
    try {
      const field = (name: string) => fields[name]?.[0] ?? null;
      if (!field('title')?.trim() || !files.video?.size) throw new HttpError('validation.invalid_input', UPLOAD_REQUIRED_MESSAGE);
      const result = await ingestVideoFile(ctx, {
        filePath: files.video.path,
        originalName: files.video.originalName,
        title: field('title') ?? '',
        description: field('description'),
        model: field('model'),
        durationText: field('duration'),
        accessLevel: field('accessLevel'),
        tags: fields.tags ?? null,
        categories: fields.categories ?? null,
        exclusiveTo: field('exclusiveTo'),
        publishAt: field('publishAt'),
        thumbnailPath: files.thumbnail?.size ? files.thumbnail.path : null,
        ...callerOf(c),
      });
      if (!result.ok) throw new HttpError(result.error);
      return ok(c, { videoId: result.videoId }, 201);
    } finally {
      await cleanup();
    }
  });
};
