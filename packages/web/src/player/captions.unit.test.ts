import { describe, expect, it } from 'vitest';
import { CAPTIONS_OFF, chooseCaption } from './captions';

describe('caption choice', () => {
  const tracks = [{ language: 'en' }, { language: 'pt-BR' }];
  it('the remembered language when the video has it, its base language else, none when off or unknown', () => {
    expect(chooseCaption(tracks, 'en')).toBe('en');
    expect(chooseCaption(tracks, 'pt-br')).toBe('pt-BR');
    expect(chooseCaption(tracks, 'pt-PT')).toBe('pt-BR');
    expect(chooseCaption(tracks, 'de')).toBeNull();
    expect(chooseCaption(tracks, CAPTIONS_OFF)).toBeNull();
    expect(chooseCaption(tracks, null)).toBeNull();
    expect(chooseCaption([], 'en')).toBeNull();
  });
});
