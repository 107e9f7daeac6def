// /api/docs: Swagger UI (swagger-ui-bundle.js, npm's swagger-ui-dist) reads
// the site's own description; nothing is loaded from another site.
/* global SwaggerUIBundle */
window.addEventListener("load", () => {
    // @ts-ignore: the bundle's global
    SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#api", deepLinking: true, validatorUrl: null });
});
