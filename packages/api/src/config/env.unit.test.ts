/** The media store's variables: MEDIA_STORE's shape and default, S3_FORCE_PATH_STYLE's values. */
import { describe, expect, it } from 'vitest';
import { parseEnv } from './env.js';

describe('MEDIA_STORE', () => {
  it('defaults to the local disk and takes s3://BUCKET[/PREFIX]', () => {
    expect(parseEnv({}).MEDIA_STORE).toBe('local');
    expect(parseEnv({ MEDIA_STORE: 's3://members-media' }).MEDIA_STORE).toBe('s3://members-media');
    expect(parseEnv({ MEDIA_STORE: 's3://members-media/site-a/v1' }).MEDIA_STORE).toBe('s3://members-media/site-a/v1');
  });

  it('refuses anything else, naming the variable', () => {
    for (const bad of ['s3://', 's3://Upper-Case', 'https://bucket', 'file:///srv/media', 's3://a', 's3://bucket/../x'])
      expect(() => parseEnv({ MEDIA_STORE: bad })).toThrow(/MEDIA_STORE: must be local or s3:\/\/BUCKET\[\/PREFIX\]/);
  });

  it('S3_FORCE_PATH_STYLE is a boolean', () => {
    expect(parseEnv({ S3_FORCE_PATH_STYLE: 'true' }).S3_FORCE_PATH_STYLE).toBe(true);
    expect(() => parseEnv({ S3_FORCE_PATH_STYLE: 'sometimes' })).toThrow(/S3_FORCE_PATH_STYLE/);
  });
});
