/** German. */
export const disclaimer = 'Die Kurse dienen nur zur Information und können von den tatsächlichen Handelspreisen abweichen; sie sind kein Angebot zum Kauf oder Verkauf.';
