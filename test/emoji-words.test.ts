// Emoji accents for speech in Spanish, French, German, Portuguese and Italian: the per-language keyword
// tables (same groups as English, only emoji with a PNG), their plural/accent handling, the words they
// must leave alone, and the speech language reaching captionEmoji (translated captions included).
import { describe, expect, it } from 'vitest';
import { TEMPLATES } from '../src/catalog/templates.js';
import { buildCues, captionEmoji } from '../src/pipeline/captions/captions.js';
import { EMOJI_WORDS, SHARED_EMOJI_WORDS, type EmojiLanguage } from '../src/pipeline/captions/emoji-words.js';
import { EMOJI_KEYWORDS, emojiForPhrase, emojiForWord, emojiLanguage, wordForms } from '../src/pipeline/captions/emoji.js';
import { translatedCues } from '../src/pipeline/captions/translate.js';

const LANGUAGES = Object.keys(EMOJI_WORDS) as EmojiLanguage[];
const accent = TEMPLATES.find((t) => t.emoji)!;
const picture = { width: 270, height: 480 };

/** Frequent words of each language that carry no picture (and the ambiguous ones left out on purpose). */
const PLAIN: Record<EmojiLanguage, string[]> = {
  es: ['el', 'la', 'los', 'las', 'un', 'una', 'de', 'del', 'que', 'qué', 'y', 'o', 'en', 'a', 'al', 'por', 'para', 'con', 'sin', 'como', 'cómo',
    'pero', 'más', 'mas', 'muy', 'ya', 'no', 'sí', 'si', 'yo', 'tú', 'te', 'me', 'se', 'lo', 'le', 'les', 'nos', 'mi', 'mis', 'su', 'sus', 'es',
    'era', 'son', 'está', 'están', 'estar', 'ser', 'fue', 'ha', 'he', 'hay', 'hacer', 'hace', 'tener', 'tengo', 'tiene', 'ir', 'voy', 'va',
    'vamos', 'ver', 'bien', 'también', 'porque', 'cuando', 'donde', 'todo', 'todos', 'esto', 'eso', 'este', 'esta', 'aquí', 'entonces', 'algo',
    'nada', 'cosa', 'cosas', 'vez', 'veces', 'gente', 'año', 'años', 'día', 'días', 'decir', 'dice', 'bueno', 'mucho', 'poco', 'otro', 'mismo',
    'siempre', 'nunca', 'ahora', 'después', 'antes', 'sobre', 'entre', 'hasta', 'desde', 'quiero', 'puedo', 'creo', 'sé', 'tan', 'así',
    'claro', 'vale', 'pues', 'tipo', 'mira', 'vino', 'bebe', 'té', 'cara', 'seguro', 'tarde', 'para', 'alto', 'real', 'ganas', 'acuerdo'],
  fr: ['le', 'la', 'les', 'un', 'une', 'des', 'de', 'du', 'et', 'ou', 'mais', 'donc', 'car', 'que', 'qui', 'quoi', 'ce', 'cette', 'ces', 'ça',
    'il', 'elle', 'ils', 'elles', 'on', 'nous', 'vous', 'je', 'tu', 'me', 'te', 'se', 'moi', 'toi', 'lui', 'leur', 'mon', 'ma', 'mes', 'ton',
    'son', 'sa', 'ses', 'notre', 'votre', 'est', "c'est", 'sont', 'être', 'avoir', 'a', 'ai', 'ont', 'fait', 'faire', 'va', 'aller', 'vais',
    'peut', 'veux', 'dans', 'sur', 'avec', 'sans', 'pour', 'par', 'en', 'y', 'pas', 'ne', 'plus', 'très', 'bien', 'aussi', 'alors', 'comme',
    'quand', 'tout', 'tous', 'toute', 'toutes', 'même', 'encore', 'déjà', 'toujours', 'jamais', 'ici', 'là', 'voilà', 'oui', 'non', 'chose',
    'choses', 'fois', 'gens', 'ans', 'jour', 'jours', 'dire', 'été', "d'accord", 'bon', 'ben', 'euh', 'enfin', 'genre', 'vraiment', 'juste',
    'peu', 'trop', 'beaucoup', 'autre', 'autres', 'chaque', 'après', 'avant', 'depuis', 'pendant', 'parce', 'sais', 'crois', "aujourd'hui",
    'sûr', 'marché', 'aime', 'mois'],
  de: ['der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einem', 'einer', 'und', 'oder', 'aber', 'doch', 'denn', 'nicht',
    'kein', 'keine', 'ich', 'du', 'er', 'sie', 'es', 'wir', 'ihr', 'mich', 'dich', 'sich', 'mir', 'dir', 'uns', 'mein', 'meine', 'sein',
    'seine', 'ihre', 'ist', 'sind', 'war', 'waren', 'bin', 'bist', 'hat', 'haben', 'habe', 'hatte', 'wird', 'werden', 'wurde', 'kann',
    'können', 'muss', 'müssen', 'will', 'soll', 'mit', 'von', 'zu', 'zum', 'zur', 'auf', 'für', 'an', 'in', 'im', 'aus', 'bei', 'nach', 'über',
    'unter', 'vor', 'so', 'wie', 'was', 'wer', 'wo', 'wenn', 'dann', 'weil', 'dass', 'als', 'auch', 'noch', 'schon', 'nur', 'sehr', 'mal',
    'ja', 'nein', 'halt', 'eben', 'also', 'jetzt', 'hier', 'da', 'dort', 'immer', 'heute', 'ganz', 'gut', 'gute', 'viel', 'viele', 'mehr',
    'alle', 'alles', 'etwas', 'nichts', 'man', 'machen', 'macht', 'gehen', 'geht', 'sagen', 'heißt', 'heiße', 'heißen', 'gibt', 'geben',
    'leute', 'menschen', 'jahr', 'jahre', 'tag', 'wirklich', 'eigentlich', 'genau', 'sicher', 'richtig', 'natürlich', 'gerne', 'lieber',
    'schön', 'fallen', 'gehalten', 'wissen', "geht's"],
  pt: ['o', 'a', 'os', 'as', 'um', 'uma', 'de', 'do', 'da', 'dos', 'das', 'em', 'no', 'na', 'nos', 'nas', 'que', 'e', 'é', 'ou', 'mas',
    'mais', 'por', 'para', 'pra', 'com', 'sem', 'como', 'se', 'não', 'sim', 'eu', 'você', 'vocês', 'ele', 'ela', 'eles', 'nós', 'me', 'te',
    'lhe', 'meu', 'minha', 'seu', 'sua', 'isso', 'isto', 'esse', 'essa', 'este', 'esta', 'aqui', 'lá', 'aí', 'já', 'só', 'também', 'muito',
    'muitos', 'pouco', 'tudo', 'todo', 'todos', 'nada', 'coisa', 'coisas', 'gente', 'cara', 'tipo', 'então', 'porque', 'quando', 'onde',
    'quem', 'ser', 'estar', 'está', 'estão', 'ter', 'tem', 'têm', 'tinha', 'foi', 'era', 'vai', 'vou', 'ir', 'ia', 'fazer', 'faz', 'dizer',
    'ver', 'dar', 'pode', 'posso', 'quero', 'sei', 'bem', 'ainda', 'sempre', 'nunca', 'agora', 'depois', 'antes', 'ano', 'anos', 'dia', 'dias',
    'vez', 'vezes', 'mesmo', 'outro', 'outra', 'dois', 'três', 'conta', 'chama', 'olha', 'bebe', 'certo', 'feito', 'real', 'acordo'],
  it: ['il', 'lo', 'la', 'i', 'gli', 'le', 'un', 'uno', 'una', 'di', 'del', 'della', 'dei', 'degli', 'delle', 'a', 'al', 'alla', 'ai', 'da',
    'dal', 'in', 'nel', 'nella', 'con', 'su', 'per', 'tra', 'fra', 'e', 'o', 'ma', 'che', 'chi', 'non', 'sì', 'si', 'no', 'io', 'tu', 'lui',
    'lei', 'noi', 'voi', 'loro', 'mi', 'ti', 'ci', 'vi', 'ne', 'mio', 'mia', 'tuo', 'suo', 'sua', 'questo', 'questa', 'questi', 'queste',
    'quello', 'quella', 'è', 'sono', 'sei', 'siamo', 'era', 'essere', 'avere', 'ho', 'hai', 'ha', 'hanno', 'fare', 'fatto', 'faccio', 'dire',
    'andare', 'vado', 'va', 'stare', 'sta', 'molto', 'poco', 'tanto', 'tutto', 'tutti', 'tutte', 'niente', 'nulla', 'cosa', 'cose', 'anche',
    'ancora', 'sempre', 'mai', 'già', 'poi', 'ora', 'adesso', 'allora', 'quindi', 'perché', 'come', 'dove', 'quando', 'così', 'bene', 'qui',
    'lì', 'anno', 'anni', 'giorno', 'giorni', 'volta', 'volte', 'persone', 'gente', 'proprio', 'davvero', 'cioè', 'tipo', 'ecco', 'prego',
    'scusa', 'successo', 'vicino', 'sicuro', 'piano', 'presto', 'solo', "po'", "c'è", 'guarda', 'te', 'letto', 'palle'],
};

describe('emoji keywords per speech language', () => {
  it('each language has every English group, in the same order, with no other emoji (so each has its PNG)', () => {
    const english = EMOJI_KEYWORDS.map((e) => e.emoji);
    for (const lang of LANGUAGES) {
      expect(EMOJI_WORDS[lang].map((e) => e.emoji), lang).toEqual(english);
      for (const entry of EMOJI_WORDS[lang]) expect(entry.words.length, `${lang} ${entry.emoji}`).toBeGreaterThanOrEqual(4);
    }
    for (const entry of SHARED_EMOJI_WORDS) expect(english).toContain(entry.emoji);
  });

  it('lists each word once per language (accents folded), in lower case, and every word earns its own emoji', () => {
    for (const lang of LANGUAGES) {
      const words = EMOJI_WORDS[lang].flatMap((e) => e.words);
      for (const w of words) expect(w, `${lang} ${w}`).toBe(w.toLowerCase());
      const folded = words.map((w) => wordForms(w, lang)[0]);
      const dupes = folded.filter((w, i) => folded.indexOf(w) !== i);
      expect(dupes, lang).toEqual([]);
      for (const entry of EMOJI_WORDS[lang]) for (const w of entry.words) expect(emojiForWord(w, lang), `${lang} ${w}`).toBe(entry.emoji);
    }
  });

  it('leaves function words, fillers and ambiguous words alone', () => {
    for (const lang of LANGUAGES) {
      const hits = PLAIN[lang].filter((w) => emojiForWord(w, lang) !== null).map((w) => `${w} -> ${emojiForWord(w, lang)}`);
      expect(hits, lang).toEqual([]);
    }
    expect(emojiForPhrase(['como', 'te', 'dije', 'pero', 'no', 'sé'], 'es')).toBeNull();
    expect(emojiForPhrase(['mais', 'tu', 'vois', 'ce', 'que', 'je', 'veux', 'dire'], 'fr')).toBeNull();
  });

  it('Spanish: accents optional, plurals, the first keyword of the phrase', () => {
    expect(emojiForWord('canción', 'es')).toBe('🎵');
    expect(emojiForWord('cancion', 'es')).toBe('🎵');
    expect(emojiForWord('Canciones,', 'es')).toBe('🎵');
    expect(emojiForWord('¡Dinero!', 'es')).toBe('💰');
    expect(emojiForWord('voces', 'es')).toBe('🎙');
    expect(emojiForWord('países', 'es')).toBe('🌍');
    expect(emojiForPhrase(['Ganamos', 'mucho', 'dinero', 'hoy.'], 'es')).toEqual({ emoji: '🏆', wordIndex: 0 });
    expect(emojiForPhrase(['Hay', 'que', 'tener', 'cuidado.'], 'es')).toEqual({ emoji: '⚠', wordIndex: 3 });
  });

  it('French: elided articles, accents optional, plural -s/-x/-aux and feminine -e', () => {
    expect(emojiForWord("l'argent", 'fr')).toBe('💰');
    expect(emojiForWord('L’argent', 'fr')).toBe('💰');
    expect(emojiForWord('idée', 'fr')).toBe('💡');
    expect(emojiForWord('idee', 'fr')).toBe('💡');
    expect(emojiForWord('idées', 'fr')).toBe('💡');
    expect(emojiForWord('jeux', 'fr')).toBe('🎮');
    expect(emojiForWord('journaux', 'fr')).toBe('📝');
    expect(emojiForWord('fatiguée', 'fr')).toBe('😴');
    expect(emojiForWord('cœur', 'fr')).toBe('❤');
    expect(emojiForWord('coeur', 'fr')).toBe('❤');
    expect(emojiForPhrase(['Mais', 'la', 'vraie', 'question', "c'est"], 'fr')).toEqual({ emoji: '❓', wordIndex: 3 });
  });

  it('German: case and umlauts folded, ß spelled out, plural and adjective endings, compounds left whole', () => {
    expect(emojiForWord('Geld', 'de')).toBe('💰');
    expect(emojiForWord('müde', 'de')).toBe('😴');
    expect(emojiForWord('mude', 'de')).toBe('😴');
    expect(emojiForWord('Bücher', 'de')).toBe('📚');
    expect(emojiForWord('Häuser', 'de')).toBe('🏠');
    expect(emojiForWord('Kindern', 'de')).toBe('👶');
    expect(emojiForWord('Fußball', 'de')).toBe('⚽');
    expect(emojiForWord('Fussball', 'de')).toBe('⚽');
    expect(emojiForWord('starken', 'de')).toBe('💪');
    expect(emojiForWord('weine', 'de')).toBe('😢');
    expect(emojiForWord('Weins', 'de')).toBe('🍷');
    expect(emojiForWord('Geldbörse', 'de')).toBeNull();
    expect(emojiForPhrase(['Das', 'ist', 'eine', 'gute', 'Idee!'], 'de')).toEqual({ emoji: '💡', wordIndex: 4 });
  });

  it('Portuguese: accents and cedilla optional, plurals -s/-es/-ões/-ns/-ais', () => {
    expect(emojiForWord('coração', 'pt')).toBe('❤');
    expect(emojiForWord('coracao', 'pt')).toBe('❤');
    expect(emojiForWord('corações', 'pt')).toBe('❤');
    expect(emojiForWord('viagens', 'pt')).toBe('✈');
    expect(emojiForWord('hospitais', 'pt')).toBe('💊');
    expect(emojiForWord('incríveis', 'pt')).toBe('🤯');
    expect(emojiForWord('cães', 'pt')).toBe('🐶');
    expect(emojiForPhrase(['Eu', 'ganhei', 'muito', 'dinheiro'], 'pt')).toEqual({ emoji: '🏆', wordIndex: 1 });
  });

  it('Italian: elided articles, accents optional, plurals -i/-e/-chi/-che', () => {
    expect(emojiForWord('caffè', 'it')).toBe('☕');
    expect(emojiForWord('caffe', 'it')).toBe('☕');
    expect(emojiForWord("dell'amore", 'it')).toBe('❤');
    expect(emojiForWord('amici', 'it')).toBe('🤝');
    expect(emojiForWord('amiche', 'it')).toBe('🤝');
    expect(emojiForWord('giochi', 'it')).toBe('🎮');
    expect(emojiForWord('figli', 'it')).toBe('👶');
    expect(emojiForWord('pianeti', 'it')).toBe('🌍');
    expect(emojiForWord('vacanze', 'it')).toBe('✈');
    expect(emojiForPhrase(['Ho', 'fatto', 'un', 'viaggio', 'incredibile'], 'it')).toEqual({ emoji: '✈', wordIndex: 3 });
  });

  it('brand names and loanwords count in every language; English words do not', () => {
    for (const lang of LANGUAGES) {
      expect(emojiForWord('YouTube', lang), lang).toBe('🎬');
      expect(emojiForWord('Podcast', lang), lang).toBe('🎙');
    }
    expect(emojiForWord('podcasts', 'es')).toBe('🎙');
    expect(emojiForWord('money', 'es')).toBeNull();
    expect(emojiForWord('fire', 'de')).toBeNull();
  });

  it('the language picks the table: region suffixes ignored, English and unknown languages use English', () => {
    expect(emojiLanguage('pt-BR')).toBe('pt');
    expect(emojiLanguage('es_MX')).toBe('es');
    expect(emojiLanguage('FR')).toBe('fr');
    for (const other of [undefined, null, '', 'en', 'en-US', 'ja', 'nl', 'constructor', 'toString']) expect(emojiLanguage(other), String(other)).toBe('en');
    const spanish = ['Quiero', 'dinero', 'y', 'fuego'];
    expect(emojiForPhrase(spanish, 'es')).toEqual({ emoji: '💰', wordIndex: 1 });
    expect(emojiForPhrase(spanish, 'en')).toBeNull();
    expect(emojiForPhrase(spanish)).toBeNull();
    expect(emojiForPhrase(['muito', 'obrigado'], 'pt-BR')).toEqual({ emoji: '🙏', wordIndex: 1 });
    expect(emojiForPhrase(['muito', 'obrigado'], 'es')).toBeNull();
    // English keeps its own stemming (and table) whatever the caller passes for it.
    expect(emojiForPhrase(['so', 'much', 'fun', 'and', 'money'], 'en')).toEqual({ emoji: '🎉', wordIndex: 2 });
    expect(emojiForPhrase(['winners'], 'ja')).toEqual({ emoji: '🏆', wordIndex: 0 });
  });
});

describe('caption emoji in the speech language', () => {
  const words = (texts: string[]) => texts.map((text, i) => ({ text, start: i * 0.4, end: i * 0.4 + 0.3, probability: 1 }));

  it('spoken captions find their emoji with the speech language, and none without it', () => {
    const cues = buildCues(words(['Ganamos', 'el', 'partido.']), { start: 0, end: 2 }, { wordsPerCue: 6 });
    expect(captionEmoji(cues, accent, picture, { language: 'es' }).map((e) => e.emoji)).toEqual(['🏆']);
    expect(captionEmoji(cues, accent, picture)).toEqual([]);
  });

  it('translated captions look in what was spoken, in the spoken language', () => {
    const spoken = buildCues(words(['Das', 'Geld', 'zählt.']), { start: 0, end: 2 }, { wordsPerCue: 6 });
    const translated = translatedCues(spoken, ['Money counts.'], 6);
    expect(captionEmoji(translated, accent, picture, { language: 'de' }).map((e) => [e.emoji, e.start, e.end])).toEqual([['💰', spoken[0]!.start, spoken[0]!.end]]);
    // The English translation on screen is not what is searched.
    expect(captionEmoji(translated, accent, picture, { language: 'en' })).toEqual([]);
  });
});
