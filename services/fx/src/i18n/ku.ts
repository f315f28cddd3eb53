/** Central Kurdish (Sorani), Arabic script. */
export const disclaimer = 'نرخەکان تەنها بۆ زانیارین و لەوانەیە جیاواز بن لە نرخی ڕاستەقینەی بازاڕ؛ پێشنیاری کڕین یان فرۆشتن نین.';
