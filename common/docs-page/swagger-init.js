// Starts Swagger UI on the element that names the unit's OpenAPI document. A file of its own, not
// an inline script, so the page's Content-Security-Policy can forbid inline scripts.
const root = document.getElementById('swagger-ui')
window.ui = SwaggerUIBundle({
  url: root.dataset.specUrl,
  domNode: root,
  deepLinking: true,
  // The default validator badge asks validator.swagger.io: nothing leaves the unit's own origin.
  validatorUrl: null,
})
