export { ARABIC_CARD_FONTS, generateArabicCard, registerArabicFonts, toArabicIndic, type CardCondition, type SyntheticArabicCard } from './cards.js';
export { seededRandom, syrianHolder, type ArabicName, type SyrianHolder } from './holders.js';
