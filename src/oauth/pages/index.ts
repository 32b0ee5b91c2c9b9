/**
 * The pages a person sees: sign-in, consent, the device flow, errors.
 * @module
 */
export { pageHeaders } from './layout';
export { checkLook, type Brand, type Look } from './look';
export { signInPage, consentPage, cliConsentPage, errorPage, permissionField, type ClientView } from './interaction';
export { deviceInputPage, deviceConfirmPage, deviceDonePage, deviceTooManyPage } from './device';
export { permissionsIn } from './words';
