/** How MEDIA_STORE and the AWS variables become an S3 client's settings: bucket, prefix, path style, endpoint. */
import { describe, expect, it } from 'vitest';
import { parseMediaStore, s3ClientConfig, usesPathStyle } from './s3Config.js';

describe('S3 store settings', () => {
  it('splits MEDIA_STORE into bucket and prefix', () => {
    expect(parseMediaStore('s3://media')).toEqual({ bucket: 'media', prefix: '' });
    expect(parseMediaStore('s3://media/')).toEqual({ bucket: 'media', prefix: '' });
    expect(parseMediaStore('s3://media/site-a/v1/')).toEqual({ bucket: 'media', prefix: 'site-a/v1/' });
  });

  it('uses path-style addressing for IP addresses and localhost, or when forced', () => {
    expect(usesPathStyle('http://127.0.0.1:7480', undefined)).toBe(true);
    expect(usesPathStyle('http://localhost:9000', undefined)).toBe(true);
    expect(usesPathStyle('http://[::1]:9000', undefined)).toBe(true);
    expect(usesPathStyle('https://s3.eu-central-1.amazonaws.com', undefined)).toBe(false);
    expect(usesPathStyle(undefined, undefined)).toBe(false);
    expect(usesPathStyle('https://rgw.internal.example', true)).toBe(true);
    expect(usesPathStyle('http://127.0.0.1:7480', false)).toBe(false);
  });

  it('prefers AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL and passes the credentials', () => {
    const base = { MEDIA_STORE: 's3://media', DATA_DIR: '/tmp/x', AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK' };
    const both = s3ClientConfig({ ...base, AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1', AWS_ENDPOINT_URL: 'http://127.0.0.1:2' });
    expect([both.endpoint, both.forcePathStyle, both.region]).toEqual(['http://127.0.0.1:1', true, 'us-east-1']);
    expect(both.credentials).toEqual({ accessKeyId: 'AK', secretAccessKey: 'SK' });
    const general = s3ClientConfig({ ...base, AWS_ENDPOINT_URL: 'https://objects.example', AWS_REGION: 'eu-west-1' });
    expect([general.endpoint, general.forcePathStyle, general.region]).toEqual(['https://objects.example', false, 'eu-west-1']);
  });
});
