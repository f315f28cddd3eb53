/** Northern Kurdish (Kurmanji), Latin script. */
export const disclaimer = 'Biha tenê ji bo agahdariyê ne û dibe ku ji bihayên bazarê yên rastîn cuda bin; ew ne pêşniyara kirîn an firotinê ne.';
